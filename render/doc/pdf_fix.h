/* Repairs the ToUnicode CMaps of a PDF written by libharu 2.3 with UTF-8 TrueType fonts.
 *
 * libharu 2.3.0 (HPDF_UseUTFEncodings + HPDF_GetFont(doc, name, "UTF-8")) writes each Type0
 * font with /Encoding /Identity-H and a /ToUnicode entry that points at a copy of its own
 * *encoding* CMap ("/CMapName /UTF-8", a begincidrange from codes to CIDs) instead of a
 * ToUnicode CMap (beginbfrange from codes to Unicode). poppler warns on every page and falls
 * back to guessing, PDFBox and PDF/A validators reject it. In those fonts a 2-byte code in a
 * content stream is the UTF-16 code unit of the character (the CIDToGIDMap turns it into a
 * glyph id), so the correct ToUnicode CMap is the identity on the Basic Multilingual Plane.
 *
 * lens_pdf_fix_tounicode() replaces each such stream by that CMap, in place (same object
 * number, so the broken stream is gone, not merely unreferenced), and writes a fresh xref
 * table. Every other object is copied byte for byte. It reads only what libharu writes: a
 * classic xref table, no incremental update, no encryption, no object streams.
 * Ownership: `in` is only read; *out is lens_malloc'd and belongs to the caller (lens_free).
 * Sizes and offsets are in bytes. Deterministic: the same input gives the same output. */
#ifndef LENS_PDF_FIX_H
#define LENS_PDF_FIX_H

#include "common/err.h"

#include <stddef.h>

/* Rewrites the PDF in[0..n) into *out / *outn. *nfixed (may be NULL) gets the number of
 * ToUnicode streams replaced; a PDF with nothing to repair is copied unchanged (nfixed 0).
 * Errors: LENS_EFORMAT naming the byte offset when the bytes are not a PDF of that form,
 * LENS_ENOMEM. On error *out is NULL. */
int lens_pdf_fix_tounicode(const unsigned char *in, size_t n, unsigned char **out, size_t *outn,
                           int *nfixed, struct lens_err *e);

/* Writes the ToUnicode CMap that replaces libharu's (the identity on U+0020..U+FFFD without
 * the surrogates and U+FEFF) into buf, NUL-terminated when cap > 0, like snprintf; returns
 * its length in bytes (without the NUL) even when cap is too small. */
size_t lens_pdf_fix_cmap(char *buf, size_t cap);

#endif
