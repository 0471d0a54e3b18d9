# frozen_string_literal: true

require_relative "lib/svc_sandbox/version"

Gem::Specification.new do |spec|
  spec.name = "svc_sandbox"
  spec.version = SvcSandbox::VERSION
  spec.summary = "Minitest and RSpec helpers for the svc-sandbox server: a session per test, virtual time, signed webhooks."
  spec.description = <<~TEXT
    Drives the svc-sandbox server (the Voice and Messaging API's sandbox) from Ruby test suites: it finds
    or starts the server, gives each test a session of its own with its own virtual clock, wraps the whole
    control API, verifies webhook signatures and turns an SDK's sleeps into virtual time. Standard library only.
  TEXT
  spec.authors = ["svc-sandbox contributors"]
  spec.license = "MIT"
  spec.required_ruby_version = ">= 3.1"
  spec.files = Dir.chdir(__dir__) { Dir["lib/**/*.rb"] + ["README.md", "svc_sandbox.gemspec"] }
  spec.require_paths = ["lib"]
  spec.metadata["rubygems_mfa_required"] = "true"
end
