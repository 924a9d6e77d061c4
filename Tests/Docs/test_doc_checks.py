#!/usr/bin/env python3
"""The doc checks run by .ci/run pass on the repository and fail, naming what disagrees, on doctored copies.

  python3 Tests/Docs/test_doc_checks.py     (standard library only; about a second)
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARCHITECTURE = os.path.join(ROOT, ".ci", "check-architecture")
DOCS = os.path.join(ROOT, ".ci", "check-docs")


def run(script, root=None):
    arguments = [sys.executable, script] + ([root] if root else [])
    result = subprocess.run(arguments, capture_output=True, text=True, timeout=120)
    return result.returncode, result.stdout + result.stderr


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def edit(path, old, new):
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    assert old in text, f"{old!r} not in {path}"
    write(path, text.replace(old, new, 1))


class ArchitectureCheckTests(unittest.TestCase):
    """`.ci/check-architecture` against docs/ARCHITECTURE.md and a copy of the sources' Swift files."""

    def setUp(self):
        self.copy = tempfile.mkdtemp(prefix="livery-architecture-")
        self.addCleanup(shutil.rmtree, self.copy)
        for folder in ("Sources", "Examples"):
            shutil.copytree(
                os.path.join(ROOT, folder), os.path.join(self.copy, folder),
                ignore=lambda directory, names: [
                    name for name in names
                    if not name.endswith(".swift") and not os.path.isdir(os.path.join(directory, name))])
        os.makedirs(os.path.join(self.copy, "docs"))
        shutil.copy(os.path.join(ROOT, "docs", "ARCHITECTURE.md"), os.path.join(self.copy, "docs"))
        self.doc = os.path.join(self.copy, "docs", "ARCHITECTURE.md")

    def check(self):
        return run(ARCHITECTURE, self.copy)

    def test_the_repository_agrees_with_its_map(self):
        status, output = run(ARCHITECTURE)
        self.assertEqual(status, 0, output)

    def test_an_unchanged_copy_passes(self):
        status, output = self.check()
        self.assertEqual(status, 0, output)

    def test_an_import_the_row_omits_is_named_with_its_target(self):
        edit(self.doc, "`Foundation`, `Dispatch`, `Synchronization`, `Glibc`, `Musl`, `Darwin` |\n| 2 | `SkinDirectory`",
             "`Foundation`, `Synchronization`, `Glibc`, `Musl`, `Darwin` |\n| 2 | `SkinDirectory`")
        status, output = self.check()
        self.assertEqual(status, 1, output)
        self.assertIn("LiveryHTTP imports Dispatch (Sources/LiveryHTTP/", output)

    def test_a_new_import_of_a_higher_target_names_the_import_and_the_layer(self):
        write(os.path.join(self.copy, "Sources", "SkinModel", "Leak.swift"), "import LiveryHTTP\n")
        status, output = self.check()
        self.assertEqual(status, 1, output)
        self.assertIn("SkinModel imports LiveryHTTP (Sources/SkinModel/Leak.swift), which its row does not name", output)
        self.assertIn("SkinModel is in layer 1, expected 3: one above LiveryHTTP (layer 2)", output)

    def test_a_row_naming_what_nothing_imports_is_refused(self):
        edit(self.doc, "| 1 | `SkinModel` | `LiveryJSON` | `Foundation` |", "| 1 | `SkinModel` | `LiveryJSON` | `Foundation`, `Dispatch` |")
        status, output = self.check()
        self.assertEqual(status, 1, output)
        self.assertIn("SkinModel's row names Dispatch, which no file of Sources/SkinModel imports", output)

    def test_a_target_without_a_row_is_named(self):
        write(os.path.join(self.copy, "Sources", "SkinThemes", "Theme.swift"), "import SkinModel\n")
        status, output = self.check()
        self.assertEqual(status, 1, output)
        self.assertIn("SkinThemes (Sources/SkinThemes) has no row in the table", output)

    def test_a_package_target_among_other_modules_is_refused(self):
        edit(self.doc, "| 2 | `SkinDirectory` | `SystemCalls`, `SkinModel` | `Glibc`",
             "| 2 | `SkinDirectory` | `SkinModel` | `SystemCalls`, `Glibc`")
        status, output = self.check()
        self.assertEqual(status, 1, output)
        self.assertIn("SkinDirectory's row names SystemCalls among other modules; it is a target of the package", output)

    def test_a_wrong_layer_is_named(self):
        edit(self.doc, "| 4 | `SkinPackage` |", "| 5 | `SkinPackage` |")
        status, output = self.check()
        self.assertEqual(status, 1, output)
        self.assertIn("SkinPackage is in layer 5, expected 4: one above ZipArchive (layer 3)", output)

    def test_a_map_without_the_table_is_unreadable(self):
        edit(self.doc, "## Targets and their imports", "## Targets")
        status, output = self.check()
        self.assertEqual(status, 2, output)
        self.assertIn("has no heading '## Targets and their imports'", output)


class DocsCheckTests(unittest.TestCase):
    """`.ci/check-docs` against the repository and a small made-up one."""

    def setUp(self):
        self.copy = tempfile.mkdtemp(prefix="livery-docs-")
        self.addCleanup(shutil.rmtree, self.copy)
        write(os.path.join(self.copy, "README.md"),
              "# X\n\nSee [the part](docs/PART.md#a-heading) and [here](#test-it).\n\n## Test it\n\n```sh\n"
              "apt-get update && apt-get install -y zlib1g-dev nginx && apt-get install -y --no-install-recommends varnish"
              " && swift test\n```\n")
        write(os.path.join(self.copy, "docs", "PART.md"), "# Part\n\n## A heading\n\n```\n## not a heading\n```\n")
        write(os.path.join(self.copy, ".ci", "run"),
              "#!/usr/bin/env bash\npackages=(zlib1g-dev  # a comment (with parentheses)\n  nginx)\n"
              "lean_packages=(varnish)\n")

    def test_the_repository_passes(self):
        status, output = run(DOCS)
        self.assertEqual(status, 0, output)

    def test_a_consistent_copy_passes(self):
        status, output = run(DOCS, self.copy)
        self.assertEqual(status, 0, output)

    def test_a_package_only_ci_installs_is_named(self):
        edit(os.path.join(self.copy, ".ci", "run"), "  nginx)", "  nginx postgresql)")
        status, output = run(DOCS, self.copy)
        self.assertEqual(status, 1, output)
        self.assertIn("README.md: .ci/run installs postgresql; the test command does not", output)

    def test_a_lean_package_only_the_readme_installs_is_named(self):
        edit(os.path.join(self.copy, "README.md"), "--no-install-recommends varnish", "--no-install-recommends varnish prometheus")
        status, output = run(DOCS, self.copy)
        self.assertEqual(status, 1, output)
        self.assertIn("README.md: the test command installs without recommends prometheus; .ci/run does not", output)

    def test_a_link_to_a_missing_heading_is_named(self):
        edit(os.path.join(self.copy, "README.md"), "#a-heading", "#not-a-heading")
        status, output = run(DOCS, self.copy)
        self.assertEqual(status, 1, output)
        self.assertIn("README.md:3: link to docs/PART.md#not-a-heading: docs/PART.md has no heading with anchor #not-a-heading", output)

    def test_a_link_to_a_missing_file_is_named(self):
        edit(os.path.join(self.copy, "README.md"), "docs/PART.md", "docs/GONE.md")
        status, output = run(DOCS, self.copy)
        self.assertEqual(status, 1, output)
        self.assertIn("README.md:3: link to docs/GONE.md#a-heading: no such file docs/GONE.md", output)


if __name__ == "__main__":
    unittest.main(verbosity=1)
