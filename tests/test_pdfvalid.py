#!/usr/bin/python3
"""Independent checks of the PDFs mpilens writes, for tests/test_pdfvalid.sh and test_pdf_fix.c.

  test_pdfvalid.py tounicode PDF   decodes every string shown in the page contents through its
                                   font's ToUnicode CMap, as read by qpdf (not by our code),
                                   and prints one line per Tj; fails when a Type0 font has no
                                   ToUnicode, or one with begincidrange (libharu 2.3's defect),
                                   or a code without a mapping
  test_pdfvalid.py words PDF TXT [OUT]
                                   compares the words pdfminer extracts from PDF with the words
                                   of TXT (pdftotext's text): prints the differences, fails on
                                   any; writes pdfminer's text to OUT
"""
import base64
import collections
import json
import re
import subprocess
import sys


def qpdf_objects(path):
    out = subprocess.run(["qpdf", "--json=2", "--json-stream-data=inline", "--decode-level=generalized",
                          path, "-"], check=True, capture_output=True).stdout
    return json.loads(out)["qpdf"][1]


def ref_key(ref):
    return "obj:" + ref


def stream_text(objs, ref):
    return base64.b64decode(objs[ref_key(ref)]["stream"]["data"]).decode("latin-1")


def parse_cmap(text, where):
    """Maps 2-byte codes to strings from beginbfchar / beginbfrange blocks (PDF 32000-1 9.10.3)."""
    if "begincidrange" in text or "begincidchar" in text:
        sys.exit("%s: ToUnicode is an encoding CMap (begincidrange)" % where)
    m = {}
    for block in re.findall(r"beginbfchar(.*?)endbfchar", text, re.S):
        for src, dst in re.findall(r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block):
            m[int(src, 16)] = bytes.fromhex(dst).decode("utf-16-be")
    for block in re.findall(r"beginbfrange(.*?)endbfrange", text, re.S):
        for lo, hi, dst in re.findall(r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block):
            lo, hi, d = int(lo, 16), int(hi, 16), bytes.fromhex(dst)
            for k in range(hi - lo + 1):
                # the last byte of the destination counts up (no carry by definition)
                m[lo + k] = (d[:-1] + bytes([d[-1] + k])).decode("utf-16-be")
    if not m:
        sys.exit("%s: ToUnicode maps nothing" % where)
    return m


def tounicode(path):
    objs = qpdf_objects(path)
    maps = {}
    for key, o in objs.items():
        v = o.get("value")
        if isinstance(v, dict) and v.get("/Type") == "/Font" and v.get("/Subtype") == "/Type0":
            if "/ToUnicode" not in v:
                sys.exit("%s: Type0 font %s has no ToUnicode" % (path, v.get("/BaseFont")))
            maps[key[4:]] = parse_cmap(stream_text(objs, v["/ToUnicode"]), "%s %s" % (path, v.get("/BaseFont")))
    shown = 0
    pages = [o["value"] for o in objs.values()
             if isinstance(o.get("value"), dict) and o["value"].get("/Type") == "/Page"]
    for page in pages:
        res = page["/Resources"]
        if isinstance(res, str):
            res = objs[ref_key(res)]["value"]
        fonts = res.get("/Font", {})
        contents = page["/Contents"]
        contents = contents if isinstance(contents, list) else [contents]
        data = "".join(stream_text(objs, c) for c in contents)
        cur = None
        for f, hexs in re.findall(r"/(\S+)\s+[-\d.]+\s+Tf|<([0-9A-Fa-f\s]*)>\s*Tj", data):
            if f:
                cur = maps.get(fonts.get("/" + f))
                continue
            if cur is None:
                sys.exit("%s: text shown in a font that is not a Type0 font with a ToUnicode" % path)
            b = bytes.fromhex(hexs)
            codes = [(b[i] << 8) | b[i + 1] for i in range(0, len(b) - 1, 2)]
            missing = [c for c in codes if c not in cur]
            if missing:
                sys.exit("%s: code <%04X> has no ToUnicode mapping" % (path, missing[0]))
            print("".join(cur[c] for c in codes))
            shown += 1
    if not shown:
        sys.exit("%s: no text shown" % path)


def words(path, txt, out=None):
    from pdfminer.high_level import extract_text
    text = extract_text(path)
    if out:
        open(out, "w", encoding="utf-8").write(text)
    a = collections.Counter(re.findall(r"\w+", text))
    b = collections.Counter(re.findall(r"\w+", open(txt, encoding="utf-8").read()))
    if a != b:
        print("only pdfminer:", sorted((a - b).items())[:10], "only pdftotext:", sorted((b - a).items())[:10],
              file=sys.stderr)
        sys.exit(1)
    print(sum(a.values()))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "tounicode":
        tounicode(sys.argv[2])
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "words":
        words(*sys.argv[2:])
    else:
        sys.exit(__doc__)
