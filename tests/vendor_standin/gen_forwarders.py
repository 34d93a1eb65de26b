#!/usr/bin/env python3
"""Generates the C++ sources of the stand-in vendor libraries.

Reads the ACL headers given on the command line (include/acl/*.h, globbed by
CMake at build time so headers added by other work are picked up), finds every
exported function, and writes one source file per library:

  forward_ascendcl.cpp   aclInit, aclFinalize, aclGetRecentErrMsg, aclrt*, ...
  forward_nnopbase.cpp   aclCreate*, aclDestroy*, aclGetStorageShape, ... (other acl*)
  forward_opapi.cpp      aclnn*

Each generated function logs its call (see call_log.h) and forwards to the
same symbol of the target library (see target_library.h). The declarations
understood are

  ACL_FUNC_VISIBILITY <ret> <name>(<params>);
  <MACRO>(<args>);   where MACRO is a function-like #define in the headers
                     whose body contains ACL_FUNC_VISIBILITY (for example
                     ACLNN_LAUNCH_SIGNATURE(aclnnAdd);), expanded here.

With --omit aclnnX (repeatable), the aclnn op pair aclnnXGetWorkspaceSize /
aclnnX gets no forwarder: a library set like a CANN version that lacks the
op, for testing how dispatch copes with a missing op.

acl_emu_ext.h is skipped, and so is any aclemu* name: real CANN has no such
symbols, and a stand-in without them proves the dispatch layer treats them as
optional.

With --check-with-cxx, the parse is cross-checked against the compiler's own
preprocessor, so a declaration style this script does not understand fails
the build instead of silently leaving a symbol out.
"""
import argparse
import pathlib
import re
import subprocess
import sys

SKIPPED_HEADERS = {"acl_emu_ext.h"}
LIBRARIES = ("ascendcl", "nnopbase", "opapi")
# What CANN ships in libascendcl.so besides aclrt*; everything else that is
# acl* but not aclnn* is the tensor-description API of libnnopbase.so.
ASCENDCL_NAMES = {"aclInit", "aclFinalize", "aclGetRecentErrMsg", "aclGetVersion", "aclGetCannAttribute",
                  "aclGetCannAttributeList", "aclGetDeviceCapability", "aclFloat16ToFloat", "aclFloatToFloat16",
                  "aclGetDataTypeSize"}
ASCENDCL_PREFIXES = ("aclrt", "aclmdl", "aclop", "aclprof", "aclsys")

QUALIFIERS = {"const", "volatile", "struct", "enum", "union", "restrict", "__restrict"}
BUILTIN_TYPE_WORDS = {"void", "bool", "char", "short", "int", "long", "float", "double", "signed", "unsigned"}


class HeaderError(Exception):
    pass


def library_of(name):
    if name.startswith("aclnn"):
        return "opapi"
    if name in ASCENDCL_NAMES or name.startswith(ASCENDCL_PREFIXES):
        return "ascendcl"
    return "nnopbase"


def strip_comments(text):
    """Removes // and /* */ comments, keeping string literals intact."""
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"', re.DOTALL)
    return pattern.sub(lambda m: m.group(0) if m.group(0).startswith('"') else " ", text)


def split_top_level(text, sep=","):
    """Splits on `sep` outside parentheses and brackets."""
    parts, depth, current = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts]


def function_like_macros(text):
    """Every function-like #define: name -> (parameters, body)."""
    macros = {}
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)(.*)$", text, re.MULTILINE):
        name, params, body = m.group(1), m.group(2), m.group(3)
        macros[name] = ([p.strip() for p in params.split(",") if p.strip()], body.strip())
    return macros


def declaration_macros(macros):
    """The macros whose expansion declares exported functions, directly or
    through another such macro (ACLNN_DECLARE_BINARY uses ACLNN_LAUNCH_SIGNATURE)."""
    chosen = {n for n, (_, body) in macros.items() if "ACL_FUNC_VISIBILITY" in body}
    while True:
        more = {n for n, (_, body) in macros.items() if n not in chosen
                and any(re.search(r"\b%s\s*\(" % re.escape(c), body) for c in chosen)}
        if not more:
            return {n: macros[n] for n in chosen}
        chosen |= more


def expand_macros(text, macros):
    # Expansions may contain further invocations: repeat until none is left.
    for _ in range(16):
        expanded = expand_once(text, macros)
        if expanded == text:
            return text
        text = expanded
    raise HeaderError("declaration macros nest more than 16 deep (recursive?)")


def expand_once(text, macros):
    for name, (params, body) in macros.items():
        def expand(m, params=params, body=body, name=name):
            args = split_top_level(m.group(1))
            if len(args) != len(params):
                raise HeaderError(f"{name} takes {len(params)} argument(s), got {m.group(0)!r}")
            out = body
            for p, a in zip(params, args):
                out = re.sub(r"\b%s\b" % re.escape(p), a, out)
            return re.sub(r"\s*##\s*", "", out)
        text = re.sub(r"\b%s\s*\(([^()]*)\)" % re.escape(name), expand, text)
    return text


def parse_param(param, index):
    """Returns (declaration text with a name, the name, the type alone)."""
    fn_ptr = re.search(r"\(\s*\*\s*(\w*)\s*\)", param)
    if fn_ptr:
        name = fn_ptr.group(1) or f"arg{index}"
        text = param[:fn_ptr.start()] + f"(*{name})" + param[fn_ptr.end():]
        return text, name, None
    core = re.sub(r"\[[^\]]*\]", "", param)
    idents = [t for t in re.findall(r"[A-Za-z_]\w*", core) if t not in QUALIFIERS]
    if len(idents) >= 2 and idents[-1] not in BUILTIN_TYPE_WORDS and not core.rstrip().endswith(("*", "&")):
        name = idents[-1]
        type_text = re.sub(r"\b%s\b(?!.*\b%s\b)" % (name, name), "", core).strip()
        return param, name, " ".join(type_text.split())
    name = f"arg{index}"
    bracket = param.find("[")
    text = f"{param[:bracket]} {name}{param[bracket:]}" if bracket >= 0 else f"{param} {name}"
    return text, name, " ".join(core.split())


def parse_declaration(decl, origin):
    decl = " ".join(decl.split())
    m = re.match(r"^(.*?)\b([A-Za-z_]\w*)\s*\((.*)\)$", decl)
    if not m or not m.group(1).strip():
        raise HeaderError(f"{origin}: cannot parse declaration {decl!r}")
    ret, name, params_text = m.group(1).strip(), m.group(2), m.group(3).strip()
    params = split_top_level(params_text) if params_text not in ("", "void") else []
    if "..." in params:
        raise HeaderError(f"{origin}: {name} is variadic, which a forwarder cannot pass on")
    parsed = [parse_param(p, i) for i, p in enumerate(params)]
    # Stream calls log the stream they act on (a by-value aclrtStream).
    stream = next((n for _, n, t in parsed if t and re.sub(r"\bconst\b", "", t).strip() == "aclrtStream"), None)
    return {
        "name": name,
        "ret": ret,
        "params": ", ".join(text for text, _, _ in parsed) or "void",
        "args": ", ".join(n for _, n, _ in parsed),
        "stream": stream,
        "signature": f"{ret} {name}({', '.join(params)})",
        "origin": origin,
    }


def preprocessed(path):
    """The header without comments, with continuation lines joined."""
    return strip_comments(path.read_text()).replace("\\\n", " ")


def declarations_of(path, text, macros):
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    text = expand_macros(text, macros)
    decls = []
    for m in re.finditer(r"\bACL_FUNC_VISIBILITY\b(.*?);", text, re.DOTALL):
        decls.append(parse_declaration(m.group(1), path.name))
    # A macro-style declaration this script does not know would silently lose
    # symbols; say so at build time.
    unknown = sorted({m.group(1) for m in re.finditer(r"(?:^|[;{}])\s*([A-Z][A-Z0-9_]+)\s*\(\s*\w+\s*\)\s*;", text)})
    for name in unknown:
        print(f"gen_forwarders.py: warning: {path.name}: unknown declaration macro {name}; "
              "its functions get no forwarder", file=sys.stderr)
    return decls


def collect(headers):
    texts = {path: preprocessed(path) for path in headers if path.name not in SKIPPED_HEADERS}
    # Headers use macros defined in the headers they include (aclnn_copy.h
    # uses aclnn_base.h's ACLNN_LAUNCH_SIGNATURE), so gather them all first.
    macros = {}
    for text in texts.values():
        macros.update(function_like_macros(text))
    macros = declaration_macros(macros)
    functions = {}
    for path, text in texts.items():
        for d in declarations_of(path, text, macros):
            if d["name"].startswith("aclemu"):
                continue
            seen = functions.get(d["name"])
            if seen and " ".join(seen["signature"].split()) != " ".join(d["signature"].split()):
                raise HeaderError(f"{d['name']} is declared differently in {seen['origin']} and {d['origin']}")
            functions.setdefault(d["name"], d)
    return functions


def check_with_preprocessor(cxx, headers, functions):
    """Cross-checks the parse against the real C preprocessor: the exported
    names it finds in the expanded headers must be exactly the parsed ones,
    so a declaration style this script misreads fails the build loudly
    instead of leaving a symbol out of the stand-in."""
    include_dirs = sorted({str(h.parent.parent) for h in headers})
    source = "".join(f'#include "acl/{h.name}"\n' for h in headers if h.name not in SKIPPED_HEADERS)
    command = [cxx, "-std=c++17", "-E", "-P", "-x", "c++"] + [f"-I{d}" for d in include_dirs] + ["-"]
    result = subprocess.run(command, input=source, capture_output=True, text=True)
    if result.returncode != 0:
        raise HeaderError(f"preprocessing the headers failed:\n{result.stderr}")
    text = " ".join(result.stdout.split())
    exported = {m.group(1) for m in re.finditer(
        r'visibility\s*\(\s*"default"\s*\)\s*\)\s*\)[^;{}()]*?\b(\w+)\s*\(', text)}
    exported = {n for n in exported if not n.startswith("aclemu")}
    missed, extra = sorted(exported - set(functions)), sorted(set(functions) - exported)
    if missed or extra:
        raise HeaderError("the header parse disagrees with the C preprocessor; "
                          f"not parsed: {missed or 'none'}; parsed but not exported: {extra or 'none'}")


def forwarder(f):
    log_args = f'"{f["name"]}"' + (f', {f["stream"]}' if f["stream"] else "")
    return (f'ACL_FUNC_VISIBILITY {f["ret"]} {f["name"]}({f["params"]}) {{\n'
            f'  npu::standin::log_call({log_args});\n'
            # A name no CANN parameter uses (aclnnNLLLoss has a `target`).
            f'  static const auto standin_target_fn = reinterpret_cast<decltype(&::{f["name"]})>('
            f'npu::standin::resolve("{f["name"]}"));\n'
            f'  return standin_target_fn({f["args"]});\n'
            f'}}\n')


def render(library, functions, headers):
    includes = "".join(f'#include "acl/{h.name}"\n' for h in headers if h.name not in SKIPPED_HEADERS)
    body = "\n".join(forwarder(f) for f in functions)
    return (f"// Generated by tests/vendor_standin/gen_forwarders.py from include/acl/*.h: do not edit.\n"
            f"// lib{library}.so of the stand-in vendor library set: {len(functions)} forwarder(s).\n"
            f"{includes}"
            f'#include "call_log.h"\n'
            f'#include "target_library.h"\n\n'
            f'extern "C" {{\n\n{body}\n}}  // extern "C"\n')


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", required=True, type=pathlib.Path)
    parser.add_argument("--check-with-cxx", metavar="COMPILER",
                        help="verify the parse against this C++ compiler's preprocessor")
    parser.add_argument("--omit", action="append", default=[], metavar="ACLNN_OP",
                        help="leave out this aclnn op pair (aclnnX and aclnnXGetWorkspaceSize)")
    parser.add_argument("headers", nargs="+", type=pathlib.Path)
    args = parser.parse_args()
    headers = sorted(set(args.headers), key=lambda p: p.name)
    try:
        functions = collect(headers)
        if args.check_with_cxx:
            check_with_preprocessor(args.check_with_cxx, headers, functions)
    except HeaderError as e:
        print(f"gen_forwarders.py: error: {e}", file=sys.stderr)
        return 1
    unknown = [op for op in args.omit if op not in functions or not op.startswith("aclnn")]
    if unknown:
        print(f"gen_forwarders.py: error: --omit names no aclnn op declared in the headers: {unknown}",
              file=sys.stderr)
        return 1
    for op in args.omit:
        functions.pop(op)
        functions.pop(op + "GetWorkspaceSize", None)
    args.output_dir.mkdir(parents=True, exist_ok=True)
    for library in LIBRARIES:
        mine = [functions[n] for n in sorted(functions) if library_of(n) == library]
        (args.output_dir / f"forward_{library}.cpp").write_text(render(library, mine, headers))
    return 0


if __name__ == "__main__":
    sys.exit(main())
