/* Colour maps for figures: viridis (perceptually uniform, the default) and a grey map for
 * print that is linear in CIE L*. A map is 256 entries; a value is placed on it by
 * lens_colormap_index(). Colours are 8-bit sRGB. Nothing here allocates or fails. */
#ifndef LENS_COLORMAP_H
#define LENS_COLORMAP_H

#include <stdint.h>

/* LENS_CMAP_DIVERGING: ColorBrewer's RdBu reversed (blue low, near-white centre at entry
 * 127.5, red high), for ratios on a log scale centred on 1 (mpilens compare's ratio map). */
enum lens_cmap { LENS_CMAP_VIRIDIS = 0, LENS_CMAP_GREY = 1, LENS_CMAP_DIVERGING = 2 };

#define LENS_CMAP_SIZE 256

/* Entry idx (clamped to 0..255) of map cmap (unknown maps fall back to viridis) as 8-bit sRGB. */
void lens_colormap_rgb8(int cmap, int idx, unsigned char rgb[3]);
/* Same as doubles in [0, 1], for cairo_set_source_rgb. */
void lens_colormap_rgb(int cmap, int idx, double rgb[3]);
/* The 256 entries as cairo RGB24/ARGB32 pixels (0xffRRGGBB), for writing image buffers. */
void lens_colormap_lut(int cmap, uint32_t lut[LENS_CMAP_SIZE]);
/* Colour of a missing (NaN) cell for map cmap: a neutral grey for viridis, white for grey. */
void lens_colormap_missing(int cmap, unsigned char rgb[3]);
/* Position t in [0, 1] (clamped; NaN -> 0) to an entry: floor(t * 256), 1.0 -> 255, as
 * matplotlib's ListedColormap does. */
int lens_colormap_index(double t);

#endif
