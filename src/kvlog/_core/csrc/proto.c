#include "kvlog_typed.h"
int kv_proto_run(kv_decoder *d, const kv_prog *p, const uint8_t **pp, const uint8_t *end, int32_t *op)
{ (void)d; (void)p; (void)pp; (void)end; *op = -1; return KV_E_FAIL; }
