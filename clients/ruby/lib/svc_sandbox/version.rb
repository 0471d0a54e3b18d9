# frozen_string_literal: true

module SvcSandbox
  # The gem's version; it follows the svc-sandbox npm package it drives.
  VERSION = "0.1.0"
end
