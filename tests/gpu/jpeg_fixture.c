/*
 * tests/gpu/jpeg_fixture.c OUT.jpg OUT.rgb - the JPEG tests/gpu/toolkit.c decodes with nvJPEG, and
 * what Debian's libjpeg decodes it to (interleaved RGB, 8 bits): run by make gpu-build here, where
 * libjpeg is, so that the GPU machine needs none. A 64 x 48 image of gradients, quality 90, 4:2:0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>

enum { WIDTH = 64, HEIGHT = 48 };

int main(int argc, char **argv)
{
    static unsigned char pixels[WIDTH * HEIGHT * 3];
    struct jpeg_compress_struct c;
    struct jpeg_decompress_struct d;
    struct jpeg_error_mgr error;
    unsigned char *data = NULL;
    unsigned long size = 0;
    FILE *out;
    int x, y;
    if (argc != 3) {
        fprintf(stderr, "usage: %s OUT.jpg OUT.rgb\n", argv[0]);
        return 2;
    }
    for (y = 0; y < HEIGHT; ++y)
        for (x = 0; x < WIDTH; ++x) {
            pixels[(y * WIDTH + x) * 3 + 0] = (unsigned char)(x * 4);
            pixels[(y * WIDTH + x) * 3 + 1] = (unsigned char)(y * 5);
            pixels[(y * WIDTH + x) * 3 + 2] = (unsigned char)((x + y) * 2);
        }
    c.err = jpeg_std_error(&error);
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &data, &size);
    c.image_width = WIDTH;
    c.image_height = HEIGHT;
    c.input_components = 3;
    c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 90, TRUE);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = &pixels[c.next_scanline * WIDTH * 3];
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    out = fopen(argv[1], "wb");
    if (out == NULL || fwrite(data, 1, size, out) != size || fclose(out) != 0)
        return 1;
    /* libjpeg's own decode of those bytes: the reference */
    d.err = jpeg_std_error(&error);
    jpeg_create_decompress(&d);
    jpeg_mem_src(&d, data, size);
    jpeg_read_header(&d, TRUE);
    d.out_color_space = JCS_RGB;
    jpeg_start_decompress(&d);
    while (d.output_scanline < d.output_height) {
        JSAMPROW row = &pixels[d.output_scanline * WIDTH * 3];
        jpeg_read_scanlines(&d, &row, 1);
    }
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    free(data);
    out = fopen(argv[2], "wb");
    if (out == NULL || fwrite(pixels, 1, sizeof pixels, out) != sizeof pixels || fclose(out) != 0)
        return 1;
    return 0;
}
