#!/usr/bin/python3
# Checks the page links of an mpilens PDF against an independent reading of it (issue 15):
# qpdf lists each page's link annotations and where their destinations point, pdftotext
# -bbox-layout gives the words each link rectangle covers, and pdftotext of the target page
# must show the heading of the section those words cite. Prints "ok N" (N links checked) or
# what is wrong.  usage: pdf_links.py PDF PAGE EXPECTED_LINKS  (PAGE 1-based, the page to check)
import json, re, subprocess, sys

pdf, page_no, want = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
doc = json.loads(subprocess.run(["qpdf", "--json=2", "--json-key=pages", "--json-key=qpdf", pdf],
                                capture_output=True, check=True, text=True).stdout)
objs = doc["qpdf"][1]
index = {p["object"]: i for i, p in enumerate(doc["pages"])}  # "22 0 R" -> 0-based page


def val(ref):
    """an object's value, following one indirect reference"""
    if isinstance(ref, str) and ref.endswith(" R"):
        return objs["obj:" + ref]["value"]
    return ref


bad = []
page_obj = val(doc["pages"][page_no - 1]["object"])
links = []
for a in val(page_obj.get("/Annots", [])):
    a = val(a)
    if a.get("/Subtype") != "/Link":
        continue
    if a.get("/Border") != [0, 0, 0]:
        bad.append("link with border %r" % a.get("/Border"))
    dest = val(a["/Dest"])
    links.append(([float(x) for x in a["/Rect"]], index.get(dest[0], -1) + 1))

# words of the page in pdftotext's coordinates (points from the top left)
height = float(val(page_obj["/MediaBox"])[3])
bbox = subprocess.run(["pdftotext", "-bbox-layout", "-f", str(page_no), "-l", str(page_no), pdf, "-"],
                      capture_output=True, check=True, text=True).stdout
words = [(float(a), float(b), float(c), float(d), w) for a, b, c, d, w in
         re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>', bbox)]
texts = {}


def page_text(n):
    if n not in texts:
        texts[n] = subprocess.run(["pdftotext", "-f", str(n), "-l", str(n), pdf, "-"],
                                  capture_output=True, check=True, text=True).stdout.split("\n")
    return texts[n]


for (x0, y0, x1, y1), target in links:
    # a word belongs to the link when its centre lies in the rectangle (PDF y grows upwards)
    inside = [w for a, b, c, d, w in words
              if x0 <= (a + c) / 2 <= x1 and height - y1 <= (b + d) / 2 <= height - y0]
    text = " ".join(inside).replace("&quot;", '"')
    m = re.search(r'page (\d+)[:,] "?([A-Za-z0-9 ]+?)"?,? (of )?input \d+', text) or \
        re.search(r'page (\d+)\.?$', text)
    if not m:
        bad.append("link to page %d covers %r, which cites no page" % (target, text))
        continue
    if int(m.group(1)) != target:
        bad.append("%r links to page %d" % (text, target))
    if m.lastindex and m.lastindex >= 2 and m.group(2):
        # the section's heading is a line of its own on the target page, and on no page before
        name = m.group(2)
        first = next((n for n in range(2, len(doc["pages"]) + 1)
                      if any(l.strip().startswith(name) and len(l.strip()) < len(name) + 30 and
                             not l.strip().startswith(name + ",") for l in page_text(n))), 0)
        if first != target:
            bad.append("%r: heading %r first on page %d, link goes to %d" % (text, name, first, target))
if len(links) != want:
    bad.append("%d links on page %d, want %d" % (len(links), page_no, want))
print("; ".join(bad) if bad else "ok %d" % len(links))
