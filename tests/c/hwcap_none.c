/* hwcap_none.c - link into an aarch64 test binary to hide every optional CPU feature from kvlog's run-time
 * detection (cpu.c asks getauxval(AT_HWCAP)). A dynamically linked executable's own definition takes
 * precedence over the C library's, so the dispatchers must fall back to their portable kernels, as they
 * would on an ARMv8.0 core without the CRC32 extension. Used by `make test-aarch64`.
 */
unsigned long getauxval(unsigned long type);

unsigned long getauxval(unsigned long type)
{
    (void)type;
    return 0;
}
