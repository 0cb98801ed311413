"""Long passages scanned in overlapping windows, so the regex time limit bounds a window.

A pattern scan of a whole 1 MB passage outlives any per-call time limit, and a timed-out scan
returns nothing: the verdict would then depend on the machine's load. Here a passage longer
than `WINDOW` characters is scanned window by window (`WINDOW` long, each starting
`WINDOW - OVERLAP` after the previous one), each window under its own time limit. A window
keeps the matches that start in its own part (before the next window starts); the next
window resumes after the last kept match, as `finditer` would. So for every match shorter
than `OVERLAP` the result is the whole-passage scan's, and a window that runs out of time
loses only its own matches.

`regex` reads the characters before `pos` (lookbehinds, `\\b` see the real text) but treats
`endpos` as the end of the text (`$`, lookaheads): a match that ends near its window's end is
matched again against the whole text.
"""

from __future__ import annotations

import regex

WINDOW = 8192
OVERLAP = 512
_EDGE = 64  # a match ending this close to a window's end may have been cut by it


def finditer_windows(
    pattern: regex.Pattern,
    text: str,
    timeout: float,
    *,
    window: int = WINDOW,
    overlap: int = OVERLAP,
) -> tuple[list[regex.Match], int]:
    """The matches of `pattern` in `text`, and the number of windows that ran out of time.

    Args:
        pattern: A compiled `regex` pattern.
        text: The passage.
        timeout: Seconds allowed to each window's scan.
        window, overlap: Window length and overlap, in characters (overlap < window).

    Returns:
        (matches in text order, positions in `text`; windows skipped on a timeout). A text
        of at most `window` characters is one window.
    """
    n = len(text)
    if overlap >= window:
        raise ValueError(f"overlap ({overlap}) must be smaller than window ({window})")
    out: list[regex.Match] = []
    late = start = pos = 0
    while True:
        end = min(start + window, n)
        last = end == n
        own = n + 1 if last else start + window - overlap  # matches starting before it
        if pos < own:
            try:
                for m in pattern.finditer(text, pos, end, timeout=timeout):
                    if m.start() >= own:
                        break
                    if m.start() < pos:  # inside a match extended by its re-match
                        continue
                    if not last and m.end() > end - _EDGE:
                        rematch = pattern.match(text, m.start(), timeout=timeout)
                        if rematch is None:
                            continue
                        m = rematch
                    out.append(m)
                    pos = max(m.end(), m.start() + 1)
            except TimeoutError:
                late += 1
            pos = max(pos, own)
        if last:
            return out, late
        start += window - overlap
