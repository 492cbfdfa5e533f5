'use strict';
// Strings that cross into Rust or out to a store as UTF-8, without losing what makes them
// distinct in JavaScript. UTF-8 cannot carry a lone UTF-16 surrogate (napi and Buffer turn each
// into U+FFFD), so 'a\uD800' and 'a\uDBFF' would become one name. `encodeText` maps every
// string to a well-formed one, injectively and reversibly (`decodeText`):
//   lone surrogate U+D800+v (v < 2048)     -> U+E000+v   (one private-use unit: same length)
//   a real U+E000..U+E7FF or U+FDD0        -> U+FDD0 followed by it
//   anything else (well-formed pairs too)  -> itself
// Well-formed strings without U+E000..U+E7FF or U+FDD0 (nearly all) are returned as they are.
// Every search tokenizer treats the images as it treats the surrogates they stand for (no case,
// never a separator, not a letter or digit), so tokens and matches are the host's; a token that
// is exactly one escaped private-use character is two units long instead of one.

const ESCAPE = 0xfdd0;
const IMAGE_BASE = 0xe000;
const IMAGE_END = 0xe7ff;
// One scan rules out nearly every string (no surrogate at all, nothing to escape).
const MAYBE = /[\uD800-\uDFFF\uE000-\uE7FF\uFDD0]/;
const NEEDS_ESCAPE = /[\uE000-\uE7FF\uFDD0]/;
const ENCODED_MARKS = /[\uE000-\uE7FF\uFDD0]/;

const isWellFormed =
  typeof String.prototype.isWellFormed === 'function'
    ? (s) => s.isWellFormed()
    : (s) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

/** The well-formed stand-in for `text` (itself for nearly every string). */
function encodeText(text) {
  if (!MAYBE.test(text) || (isWellFormed(text) && !NEEDS_ESCAPE.test(text))) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += text[i] + text[i + 1];
        i++;
        continue;
      }
    }
    if (code >= 0xd800 && code <= 0xdfff) out += String.fromCharCode(IMAGE_BASE + (code - 0xd800));
    else if ((code >= IMAGE_BASE && code <= IMAGE_END) || code === ESCAPE) out += String.fromCharCode(ESCAPE, code);
    else out += text[i];
  }
  return out;
}

/** The string `encodeText` was given (any other string comes back as it is). */
function decodeText(text) {
  if (!ENCODED_MARKS.test(text)) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === ESCAPE && i + 1 < text.length) {
      out += text[i + 1];
      i++;
    } else if (code >= IMAGE_BASE && code <= IMAGE_END) {
      out += String.fromCharCode(0xd800 + (code - IMAGE_BASE));
    } else {
      out += text[i];
    }
  }
  return out;
}

/** `encodeText` over an array, returning the same array when nothing changes. */
function encodeTexts(texts) {
  let out = texts;
  for (let i = 0; i < texts.length; i++) {
    const value = texts[i];
    if (typeof value !== 'string') continue;
    const encoded = encodeText(value);
    if (encoded !== value) {
      if (out === texts) out = texts.slice();
      out[i] = encoded;
    }
  }
  return out;
}

/** `decodeText` over an array, returning the same array when nothing changes. */
function decodeTexts(texts) {
  let out = texts;
  for (let i = 0; i < texts.length; i++) {
    const decoded = decodeText(texts[i]);
    if (decoded !== texts[i]) {
      if (out === texts) out = texts.slice();
      out[i] = decoded;
    }
  }
  return out;
}

module.exports = { encodeText, decodeText, encodeTexts, decodeTexts };
