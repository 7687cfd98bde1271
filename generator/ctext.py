"""C tokens (from libclang) back into text, spaced the way a person writes C."""

from __future__ import annotations

# Keywords followed by "(" with a space: `if (`, `return (`, `void (*handler)`; another name before
# "(" is a call or a function's declarator: `f(x)`.
SPACED_KEYWORDS = frozenset({"if", "switch", "while", "for", "return", "case", "do", "else", "void", "char", "short",
                             "int", "long", "float", "double", "signed", "unsigned", "const", "volatile"})
NO_SPACE_BEFORE = frozenset({",", ";", ")", "]", "[", ".", "->", "++", "--"})
NO_SPACE_AFTER = frozenset({"(", "[", ".", "->", "!", "~"})


def glued(before: str, token: str) -> bool:
    """Whether `token` follows `before` with no space between them."""
    if not before or token in NO_SPACE_BEFORE or before in NO_SPACE_AFTER:
        return True
    if token == "(":
        return before not in SPACED_KEYWORDS and (before[:1].isalnum() or before[:1] == "_" or before in (")", "]"))
    # `*` of a declarator or a dereference stays with what follows: `const char *name`, `*(p)`
    return before == "*" and (token[:1].isalpha() or token[:1] in "_(")


def spaced(tokens: list[str]) -> str:
    """Tokens as one line of C."""
    text = ""
    for i, token in enumerate(tokens):
        text += token if glued(tokens[i - 1] if i else "", token) else " " + token
    return text
