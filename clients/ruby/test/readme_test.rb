# frozen_string_literal: true

require "test_helper"

# The README's first example passes as written, and every Ruby block of the README and of
# docs/ruby.md is valid Ruby.
class ReadmeTest < Minitest::Test
  include Support

  README = File.expand_path("../README.md", __dir__)
  DOCS = File.expand_path("../../../docs/ruby.md", __dir__)

  def ruby_blocks(path)
    File.read(path).scan(/^```ruby[^\n]*\n(.*?)^```$/m).map(&:first) # with its mark: ```ruby run
  end

  def test_the_first_example_passes_as_written
    first = ruby_blocks(README).first
    assert_includes first, "include SvcSandbox::Minitest"

    Dir.mktmpdir do |dir|
      File.write(File.join(dir, "first_call_test.rb"), first)
      output, status = ruby("load 'first_call_test.rb'", env: { "SVC_SANDBOX_URL" => nil }, chdir: dir)

      assert status.success?, output
      assert_includes output, "1 runs, 3 assertions, 0 failures, 0 errors, 0 skips"
    end
  end

  # Issue: no README showed a correct loopback receiver; a user's own hung 10 minutes on a
  # start/stop race. The README's receiver runs as written, and docs/ruby.md shows the same one.
  def test_the_webhook_receiver_example_passes_as_written
    receiver = ruby_blocks(README).find { |code| code.include?("class WebhookReceiver") }
    assert receiver, "the README shows no webhook receiver"
    assert_includes ruby_blocks(DOCS), receiver

    Dir.mktmpdir do |dir|
      File.write(File.join(dir, "webhook_test.rb"), receiver)
      output, status = ruby("load 'webhook_test.rb'", env: { "SVC_SANDBOX_URL" => nil }, chdir: dir)

      assert status.success?, output
      assert_includes output, "1 runs, 3 assertions, 0 failures, 0 errors, 0 skips"
    end
  end

  def test_the_readme_gives_no_registry_advice_and_its_links_resolve
    text = File.read(README)
    advice = text[%r{npm (install|i|add) (--save-dev |-D )?svc-sandbox(?![\w./-])}]
    assert_nil advice, "the README gives registry advice: #{advice.inspect}"
    text.scan(/\]\((\.\.[^)#]+)(?:#([^)]+))?\)/).each do |path, anchor|
      target = File.expand_path(path, File.dirname(README))
      assert File.exist?(target), "the README links #{path}, which does not exist"
      next unless anchor

      headings = File.read(target).scan(/^#+ (.+)$/).flatten.map { |h| h.downcase.gsub(/[^a-z0-9 _-]/, "").tr(" ", "-") }
      assert_includes headings, anchor, "the README links #{path}##{anchor}, a section #{path} does not have"
    end
  end

  def test_every_ruby_block_of_the_readme_and_the_docs_is_valid_ruby
    blocks = ruby_blocks(README) + ruby_blocks(DOCS)
    assert_operator blocks.size, :>=, 8

    blocks.each do |code|
      RubyVM::InstructionSequence.compile(code)
    rescue SyntaxError => e
      flunk "#{e.message}\nin:\n#{code}"
    end
  end
end
