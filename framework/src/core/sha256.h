/* host: SHA-256 (FIPS 180-4), for plugin file hashes and run provenance. */
#ifndef SHARD_SHA256_H
#define SHARD_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "shard/status.h"

typedef struct shard_sha256 {
  uint32_t h[8];
  uint64_t nbytes;    /* total length so far */
  uint8_t block[64];  /* pending partial block */
  size_t nblock;      /* bytes in block */
} shard_sha256;

void shard_sha256_init(shard_sha256 *s);
void shard_sha256_update(shard_sha256 *s, const void *data, size_t n);
void shard_sha256_final(shard_sha256 *s, uint8_t out_digest[32]);
/* final, as 64 lowercase hex digits and a NUL */
void shard_sha256_final_hex(shard_sha256 *s, char out_hex[65]);
/* one-shot helpers; out_hex receives 64 lowercase hex digits and a NUL */
void shard_sha256_hex(const void *data, size_t n, char out_hex[65]);
void shard_sha256_digest_to_hex(const uint8_t digest[32], char out_hex[65]);
/* hash a whole file; SHARD_ERR_IO with the cause in msg */
int shard_sha256_file_hex(const char *path, char out_hex[65], shard_msg *msg);

#endif
