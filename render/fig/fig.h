/* The figure wing: every figure mpilens draws, with cairo, as PNG or SVG files or onto a
 * PDF page. Figures take finished results from analysis/ and only draw them.
 * This header is the public contract of its folder: code outside the folder includes this
 * header and no other header of the folder (tests/test_layout.sh checks it). */
#ifndef LENS_FIG_H
#define LENS_FIG_H

#include "figure.h" /* the figure scaffold: PNG, SVG and PDF embedding, fonts, axes */
#include "colormap.h" /* colour scales */
#include "heatmap.h" /* matrix heat maps */
#include "surface.h" /* 3-D surfaces of marks */
#include "gridmap.h" /* grid maps of runs */
#include "histogram.h" /* histograms */
#include "dendrogram.h" /* dendrograms */
#include "treefig.h" /* tree figures */
#include "hostcolour.h" /* one colour per host, shared by every figure of a report */
#include "njtree.h" /* neighbour-joining tree figures */
#include "linkmap.h" /* link-cluster maps */
#include "linkcurves.h" /* per-cluster delay curves */
#include "slices.h" /* slices of a packed cube */
#include "p2pplot.h" /* point-to-point sweep plots */
#include "pie.h" /* message-size pies */
#include "strip.h" /* strip plots of a few values (bisection rounds) */
#include "timeline.h" /* trace timelines */
#include "profile_plot.h" /* profile plots */
#include "ratiomap.h" /* mpilens compare: the ratio map and the before/after histograms */
#include "gainplot.h" /* problems --versions: time and problem shares against the process count */

#endif
