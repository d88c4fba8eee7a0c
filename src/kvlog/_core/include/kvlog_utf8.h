/* UTF-8 well-formedness (RFC 3629): no overlongs, no surrogates, nothing above U+10FFFF. */
#ifndef KVLOG_UTF8_H
#define KVLOG_UTF8_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline int kv_utf8_valid(const unsigned char *p, size_t n)
{
    const unsigned char *end = p + n;
    while (p < end) {
        if (end - p >= 8) {  /* eight ASCII bytes at a time */
            uint64_t w;
            memcpy(&w, p, 8);
            if (!(w & 0x8080808080808080ULL)) {
                p += 8;
                continue;
            }
        }
        unsigned char c = *p;
        if (c < 0x80) { p++; continue; }
        size_t need;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) need = 1;
        else if (c == 0xE0) { need = 2; lo = 0xA0; }
        else if (c >= 0xE1 && c <= 0xEC) need = 2;
        else if (c == 0xED) { need = 2; hi = 0x9F; }
        else if (c >= 0xEE && c <= 0xEF) need = 2;
        else if (c == 0xF0) { need = 3; lo = 0x90; }
        else if (c >= 0xF1 && c <= 0xF3) need = 3;
        else if (c == 0xF4) { need = 3; hi = 0x8F; }
        else return 0;
        if ((size_t)(end - p) < need + 1) return 0;
        if (p[1] < lo || p[1] > hi) return 0;
        for (size_t i = 2; i <= need; i++)
            if ((p[i] & 0xC0) != 0x80) return 0;
        p += need + 1;
    }
    return 1;
}
#endif
