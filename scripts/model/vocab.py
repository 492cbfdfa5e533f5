"""Which teacher pieces the static model keeps: those reachable after NFKC + lowercase and
written only in scripts en/zh/ja/ko text needs."""
import unicodedata

META = "\u2581"

# (first, last) code point ranges, inclusive
KEPT_RANGES = (
    (0x0021, 0x007E),  # ASCII letters, digits, punctuation
    (0x00A1, 0x024F),  # Latin-1 supplement and Latin Extended-A/B (accented words in en text)
    (0x2010, 0x205E),  # general punctuation
    (0x20A0, 0x20C0),  # currency signs
    (0x2100, 0x2BFF),  # letterlike, arrows, math, technical, box, shapes, misc symbols
    (0x3000, 0x303F),  # CJK symbols and punctuation
    (0x3040, 0x30FF),  # hiragana, katakana
    (0x3130, 0x318F),  # Hangul compatibility jamo
    (0x31F0, 0x31FF),  # katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xAC00, 0xD7A3),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0x1F300, 0x1FAFF),  # emoji
    (0x20000, 0x2FA1F),  # CJK extensions B-F, compatibility supplement
)


def char_kept(ch):
    cp = ord(ch)
    for lo, hi in KEPT_RANGES:
        if lo <= cp <= hi:
            return True
    return False


def piece_kept(piece):
    """A piece is kept when the run-time normalization leaves it unchanged (otherwise no input
    can ever produce it) and every character other than the word-start marker is in a kept
    script."""
    if not piece or unicodedata.normalize("NFKC", piece).lower() != piece:
        return False
    body = piece[1:] if piece.startswith(META) else piece
    if META in body:
        return False
    return all(char_kept(c) for c in body)
