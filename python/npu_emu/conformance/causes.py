"""The cause of a failure, for grouping: the exception type and the first
line of its message with what varies between tests masked (numbers,
addresses, shapes, sizes, quoted tensor values), so that the same bug hit
by a hundred tests is one cause with a count."""

from __future__ import annotations

import re

# Applied in order: addresses, then shapes and size lists, then numbers.
_MASKS = (
    (re.compile(r"0x[0-9a-fA-F]+"), "0x…"),
    (re.compile(r"torch\.Size\(\[[^\]]*\]\)"), "torch.Size([…])"),
    (re.compile(r"\[\s*-?\d+(?:\s*,\s*-?\d+)*\s*,?\s*\]"), "[…]"),
    (re.compile(r"\(\s*-?\d+(?:\s*,\s*-?\d+)+\s*,?\s*\)"), "(…)"),
    (re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d+|\.\d+|\d+)(?:[eE][-+]?\d+)?(?!\w)"), "N"),
)
# A first line longer than this is cut after its first sentence (PyTorch's
# dispatcher errors list every dispatch key on one line).
_LONG = 160
_SENTENCE_END = re.compile(r"(?<=[a-z0-9'\")\]])\.\s")
# `Type: message`, the type possibly dotted (torch._dynamo.exc.Unsupported).
_EXCEPTION = re.compile(r"^((?:[A-Za-z_]\w*\.)*[A-Z]\w*)(?::\s*|$)")


# Terminal colour codes some messages carry (torch.load's weights-only error).
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def first_line(message: str) -> str:
    """The first non-empty line, whole, without terminal colour codes."""
    message = _ANSI.sub("", message)
    return next((line.strip() for line in message.splitlines() if line.strip()), "")


def cause(message: str) -> str:
    """`ExceptionType: normalized first line` of a failure message (pytest's
    crash message `Type: text`); messages without a type keep their text."""
    line = first_line(message)
    match = _EXCEPTION.match(line)
    kind, text = (match.group(1).rsplit(".", 1)[-1], line[match.end():]) if match else ("", line)
    if len(text) > _LONG:
        end = _SENTENCE_END.search(text)
        if end:
            text = text[: end.start() + 1]
    for pattern, replacement in _MASKS:
        text = pattern.sub(replacement, text)
    text = re.sub(r"\s+", " ", text).strip()
    return f"{kind}: {text}" if kind and text else (kind or text or "(no message)")
