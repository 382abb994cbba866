#include <png.h>
#include <string.h>
// PNG_IMAGE_VERSION and PNG_FORMAT_* are macros Swift imports as constants, but the image
// struct's opaque pointer must start NULL; these helpers keep that detail in C.
static inline png_image foldkit_png_image(void) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    return image;
}
static inline unsigned foldkit_png_format_rgb(void) { return PNG_FORMAT_RGB; }
