/* Writes an 8-bit RGB image as a PNG file: zlib "stored" (uncompressed)
 * blocks, our own CRC-32 and Adler-32, no library needed. */
#ifndef STENCIL_PNG_H
#define STENCIL_PNG_H

#include <stddef.h>
#include <stdint.h>

/* rgb holds height rows of width*3 bytes. Returns 0 or -1 (errno set). */
int png_write_rgb(const char *path, const uint8_t *rgb, uint32_t width, uint32_t height);

#endif
