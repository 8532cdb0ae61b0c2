#!/usr/bin/env python3
"""Writes Sources/AppexCore/Types/UTTypeDeclaration+SystemTable.swift from SystemTypes.plist.

The plist is the readable source of the built-in types; the Swift table is what processes
load, with no file to find and nothing to parse. Run this after editing the plist;
SystemTypesLoadingTests fails until the two agree.
"""
import json
import plistlib
import sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent
source = root / "Sources/AppexCore/Types/SystemTypes.plist"
target = root / "Sources/AppexCore/Types/UTTypeDeclaration+SystemTable.swift"

with source.open("rb") as file:
    declarations = plistlib.load(file)


def swift_string(text):
    return json.dumps(text, ensure_ascii=False)


def swift_array(values):
    return "[" + ", ".join(swift_string(value) for value in values) + "]"


def as_list(value):
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


lines = [
    "// Generated from SystemTypes.plist by Support/generate-system-types.py. Do not edit:",
    "// edit the plist and run the script; SystemTypesLoadingTests checks that the two agree.",
    "",
    "extension UTTypeDeclaration {",
    "    /// The built-in table, as `SystemTypes.plist` declares it, compiled in.",
    "    static let systemTable: [UTTypeDeclaration] = [",
]
for entry in declarations:
    tags = entry.get("UTTypeTagSpecification", {})
    arguments = [f"identifier: {swift_string(entry['UTTypeIdentifier'])}"]
    conforms = as_list(entry.get("UTTypeConformsTo"))
    extensions = as_list(tags.get("public.filename-extension"))
    mimes = as_list(tags.get("public.mime-type"))
    if conforms:
        arguments.append(f"conformsTo: {swift_array(conforms)}")
    if extensions:
        arguments.append(f"filenameExtensions: {swift_array(extensions)}")
    if mimes:
        arguments.append(f"mimeTypes: {swift_array(mimes)}")
    if "UTTypeDescription" in entry:
        arguments.append(f"description: {swift_string(entry['UTTypeDescription'])}")
    lines.append(f"        UTTypeDeclaration({', '.join(arguments)}),")
lines += ["    ]", "}", ""]

text = "\n".join(lines)
if "--check" in sys.argv:
    sys.exit(0 if target.exists() and target.read_text() == text else 1)
target.write_text(text)
print(f"wrote {len(declarations)} declarations to {target.relative_to(root)}")
