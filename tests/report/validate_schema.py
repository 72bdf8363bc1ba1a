#!/usr/bin/env python3
"""Validate drivestress result documents against schema/result.schema.json.

    validate_schema.py [--schema SCHEMA] DOCUMENT.json [DOCUMENT.json ...]

DOCUMENT may be "-" for standard input.  The schema defaults to
schema/result.schema.json of this source tree.

Exit status: 0 every document is valid, 1 a document is invalid or cannot be
read, 77 the jsonschema module (Draft 2020-12 support, python3-jsonschema >=
4) is missing, so nothing could be checked (meson shows SKIP).
"""

import argparse
import json
import os
import sys

EXIT_VALID = 0
EXIT_INVALID = 1
EXIT_SKIP = 77

DEFAULT_SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                              "schema", "result.schema.json")


def load_validator_class():
    """The Draft 2020-12 validator class, or exit 77 saying why there is none."""
    try:
        import jsonschema
    except ImportError as e:
        print("SKIP: python module jsonschema is missing (%s); install python3-jsonschema" % e,
              file=sys.stderr)
        sys.exit(EXIT_SKIP)
    cls = getattr(jsonschema, "Draft202012Validator", None)
    if cls is None:
        print("SKIP: jsonschema %s has no Draft 2020-12 support (need >= 4.0)"
              % getattr(jsonschema, "__version__", "?"), file=sys.stderr)
        sys.exit(EXIT_SKIP)
    return cls, jsonschema


def load_json(path):
    if path == "-":
        return json.load(sys.stdin)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def make_validator(schema_path):
    """A validator for the schema at schema_path (exits 1 if the schema itself is bad)."""
    cls, jsonschema = load_validator_class()
    try:
        schema = load_json(schema_path)
        cls.check_schema(schema)
    except (OSError, ValueError) as e:
        print("%s: cannot load schema: %s" % (schema_path, e), file=sys.stderr)
        sys.exit(EXIT_INVALID)
    except jsonschema.exceptions.SchemaError as e:
        print("%s: not a valid Draft 2020-12 schema: %s" % (schema_path, e.message),
              file=sys.stderr)
        sys.exit(EXIT_INVALID)
    return cls(schema, format_checker=jsonschema.FormatChecker())


def errors_of(validator, document):
    """Messages, one line each, for everything wrong with document."""
    out = []
    for e in sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path)):
        where = "$" + "".join("[%d]" % p if isinstance(p, int) else ".%s" % p
                              for p in e.absolute_path)
        out.append("%s: %s" % (where, e.message))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--schema", default=DEFAULT_SCHEMA, help="schema file")
    parser.add_argument("documents", nargs="+", metavar="DOCUMENT", help="result document(s)")
    args = parser.parse_args(argv)

    validator = make_validator(args.schema)
    status = EXIT_VALID
    for path in args.documents:
        try:
            document = load_json(path)
        except (OSError, ValueError) as e:
            print("%s: cannot read: %s" % (path, e), file=sys.stderr)
            status = EXIT_INVALID
            continue
        errors = errors_of(validator, document)
        if errors:
            status = EXIT_INVALID
            print("%s: INVALID (%d error%s)" % (path, len(errors), "" if len(errors) == 1 else "s"))
            for line in errors[:50]:
                print("  " + line)
        else:
            print("%s: valid" % path)
    return status


if __name__ == "__main__":
    sys.exit(main())
