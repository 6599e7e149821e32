/* host: the checkpoint container (format 4).
 *
 * A checkpoint is one binary file, read back whole into memory and parsed
 * from that buffer with a bound check on every read:
 *
 *   offset  size  field
 *        0     8  magic "SHARDCKP"
 *        8     4  format version (uint32, 4)
 *       12     4  CRC-32 (IEEE 802.3, zlib's) of bytes 16 .. length-1
 *       16     8  length of the whole file in bytes (uint64)
 *       24    64  run hash (hex)
 *       88     8  step the checkpoint was written after (int64)
 *       96     8  bytes of the partial history it continues (int64)
 *      104     8  data rows in those bytes (int64)
 *      112     4  CRC-32 of those history bytes (uint32)
 *      116     4  number of sections (uint32)
 *      120     8  reserved, zero
 *      128        sections
 *
 * A section is a 32-byte head — name (16 bytes, NUL padded), type (uint32),
 * reserved (uint32, zero), element count (uint64) — and its data padded
 * with zeros to a multiple of 8 bytes. Integers and floats are stored in the
 * writer's byte order (a checkpoint moves between machines of one order).
 * Earlier shards wrote "SHARDCK1".."SHARDCK3" without a checksum: those are
 * recognised and refused by number. */
#ifndef SHARD_CHECKPOINT_H
#define SHARD_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "shard/status.h"

#define SHARD_CK_MAGIC "SHARDCKP"
#define SHARD_CK_VERSION 4u
#define SHARD_CK_HEADER 128u
#define SHARD_CK_SECTION_HEAD 32u

/* offsets of the header fields */
enum {
  SHARD_CK_OFF_VERSION = 8,
  SHARD_CK_OFF_CRC = 12,
  SHARD_CK_OFF_LENGTH = 16,
  SHARD_CK_OFF_HASH = 24,
  SHARD_CK_OFF_STEP = 88,
  SHARD_CK_OFF_HIST_BYTES = 96,
  SHARD_CK_OFF_HIST_ROWS = 104,
  SHARD_CK_OFF_HIST_CRC = 112,
  SHARD_CK_OFF_NSECTIONS = 116
};

typedef enum shard_ck_type { SHARD_CK_I32 = 1, SHARD_CK_I64 = 2, SHARD_CK_F64 = 3, SHARD_CK_BYTES = 4 } shard_ck_type;

typedef struct shard_ck_header {
  uint32_t version;
  char run_hash[64];
  int64_t step, hist_bytes, hist_rows;
  uint32_t hist_crc, nsections;
} shard_ck_header;

/* CRC-32 (the polynomial of zlib and PNG), continued from `crc` (0 to start). */
uint32_t shard_crc32(uint32_t crc, const void *data, size_t n);

/* bytes per element of a section type (0 for an unknown type) */
size_t shard_ck_type_size(uint32_t type);

/* ---- writing (into a FILE, usually an open_memstream) ---- */
void shard_ck_put_header(FILE *f, const shard_ck_header *h);
void shard_ck_put_section(FILE *f, const char *name, shard_ck_type type, const void *data, uint64_t count);
/* Fill in the length and the checksum of a complete checkpoint in memory
 * (also the test hook that re-seals a mutated checkpoint). */
void shard_ck_seal(unsigned char *buf, size_t len);

/* ---- reading ---- */
typedef struct shard_ck_reader {
  const unsigned char *buf;
  size_t len, pos;
  uint32_t sections_left;
} shard_ck_reader;

/* Check the header of buf[0..len): magic, version, length, checksum, and
 * parse it. SHARD_OK; else SHARD_ERR_INPUT with what is wrong in msg, and
 * *out_version set to the format found when it is another version (else 0). */
int shard_ck_open(const unsigned char *buf, size_t len, shard_ck_header *h, shard_ck_reader *rd, uint32_t *out_version,
                  shard_msg *msg);
/* Parse only the fixed header (first SHARD_CK_HEADER bytes, no checksum):
 * for a quick look at a checkpoint's run hash and step. */
int shard_ck_peek(const unsigned char *buf, size_t len, shard_ck_header *h, uint32_t *out_version, shard_msg *msg);
/* Read the next section, which must be `name` of `type` with exactly
 * `count` elements, into dst. SHARD_ERR_INPUT with what differs in msg. */
int shard_ck_get_section(shard_ck_reader *rd, const char *name, shard_ck_type type, void *dst, uint64_t count,
                         shard_msg *msg);
/* Every section has been read and nothing follows. */
int shard_ck_close(const shard_ck_reader *rd, shard_msg *msg);

/* Read a whole file into memory (at most max_bytes). SHARD_OK with *out
 * malloc'd (free it) and *out_len; SHARD_ERR_IO / SHARD_ERR_NOMEM /
 * SHARD_ERR_INPUT (larger than max_bytes) with the cause in msg. */
int shard_read_file(const char *path, size_t max_bytes, unsigned char **out, size_t *out_len, shard_msg *msg);

#endif
