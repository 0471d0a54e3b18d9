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
