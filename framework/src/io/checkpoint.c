/* host: the checkpoint container (see checkpoint.h). */
#include "io/checkpoint.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* CRC-32, reflected polynomial 0xEDB88320 (zlib, PNG, Ethernet) */
static const uint32_t crc_table[256] = {
    0x00000000u, 0x77073096u, 0xee0e612cu, 0x990951bau, 0x076dc419u, 0x706af48fu,
    0xe963a535u, 0x9e6495a3u, 0x0edb8832u, 0x79dcb8a4u, 0xe0d5e91eu, 0x97d2d988u,
    0x09b64c2bu, 0x7eb17cbdu, 0xe7b82d07u, 0x90bf1d91u, 0x1db71064u, 0x6ab020f2u,
    0xf3b97148u, 0x84be41deu, 0x1adad47du, 0x6ddde4ebu, 0xf4d4b551u, 0x83d385c7u,
    0x136c9856u, 0x646ba8c0u, 0xfd62f97au, 0x8a65c9ecu, 0x14015c4fu, 0x63066cd9u,
    0xfa0f3d63u, 0x8d080df5u, 0x3b6e20c8u, 0x4c69105eu, 0xd56041e4u, 0xa2677172u,
    0x3c03e4d1u, 0x4b04d447u, 0xd20d85fdu, 0xa50ab56bu, 0x35b5a8fau, 0x42b2986cu,
    0xdbbbc9d6u, 0xacbcf940u, 0x32d86ce3u, 0x45df5c75u, 0xdcd60dcfu, 0xabd13d59u,
    0x26d930acu, 0x51de003au, 0xc8d75180u, 0xbfd06116u, 0x21b4f4b5u, 0x56b3c423u,
    0xcfba9599u, 0xb8bda50fu, 0x2802b89eu, 0x5f058808u, 0xc60cd9b2u, 0xb10be924u,
    0x2f6f7c87u, 0x58684c11u, 0xc1611dabu, 0xb6662d3du, 0x76dc4190u, 0x01db7106u,
    0x98d220bcu, 0xefd5102au, 0x71b18589u, 0x06b6b51fu, 0x9fbfe4a5u, 0xe8b8d433u,
    0x7807c9a2u, 0x0f00f934u, 0x9609a88eu, 0xe10e9818u, 0x7f6a0dbbu, 0x086d3d2du,
    0x91646c97u, 0xe6635c01u, 0x6b6b51f4u, 0x1c6c6162u, 0x856530d8u, 0xf262004eu,
    0x6c0695edu, 0x1b01a57bu, 0x8208f4c1u, 0xf50fc457u, 0x65b0d9c6u, 0x12b7e950u,
    0x8bbeb8eau, 0xfcb9887cu, 0x62dd1ddfu, 0x15da2d49u, 0x8cd37cf3u, 0xfbd44c65u,
    0x4db26158u, 0x3ab551ceu, 0xa3bc0074u, 0xd4bb30e2u, 0x4adfa541u, 0x3dd895d7u,
    0xa4d1c46du, 0xd3d6f4fbu, 0x4369e96au, 0x346ed9fcu, 0xad678846u, 0xda60b8d0u,
    0x44042d73u, 0x33031de5u, 0xaa0a4c5fu, 0xdd0d7cc9u, 0x5005713cu, 0x270241aau,
    0xbe0b1010u, 0xc90c2086u, 0x5768b525u, 0x206f85b3u, 0xb966d409u, 0xce61e49fu,
    0x5edef90eu, 0x29d9c998u, 0xb0d09822u, 0xc7d7a8b4u, 0x59b33d17u, 0x2eb40d81u,
    0xb7bd5c3bu, 0xc0ba6cadu, 0xedb88320u, 0x9abfb3b6u, 0x03b6e20cu, 0x74b1d29au,
    0xead54739u, 0x9dd277afu, 0x04db2615u, 0x73dc1683u, 0xe3630b12u, 0x94643b84u,
    0x0d6d6a3eu, 0x7a6a5aa8u, 0xe40ecf0bu, 0x9309ff9du, 0x0a00ae27u, 0x7d079eb1u,
    0xf00f9344u, 0x8708a3d2u, 0x1e01f268u, 0x6906c2feu, 0xf762575du, 0x806567cbu,
    0x196c3671u, 0x6e6b06e7u, 0xfed41b76u, 0x89d32be0u, 0x10da7a5au, 0x67dd4accu,
    0xf9b9df6fu, 0x8ebeeff9u, 0x17b7be43u, 0x60b08ed5u, 0xd6d6a3e8u, 0xa1d1937eu,
    0x38d8c2c4u, 0x4fdff252u, 0xd1bb67f1u, 0xa6bc5767u, 0x3fb506ddu, 0x48b2364bu,
    0xd80d2bdau, 0xaf0a1b4cu, 0x36034af6u, 0x41047a60u, 0xdf60efc3u, 0xa867df55u,
    0x316e8eefu, 0x4669be79u, 0xcb61b38cu, 0xbc66831au, 0x256fd2a0u, 0x5268e236u,
    0xcc0c7795u, 0xbb0b4703u, 0x220216b9u, 0x5505262fu, 0xc5ba3bbeu, 0xb2bd0b28u,
    0x2bb45a92u, 0x5cb36a04u, 0xc2d7ffa7u, 0xb5d0cf31u, 0x2cd99e8bu, 0x5bdeae1du,
    0x9b64c2b0u, 0xec63f226u, 0x756aa39cu, 0x026d930au, 0x9c0906a9u, 0xeb0e363fu,
    0x72076785u, 0x05005713u, 0x95bf4a82u, 0xe2b87a14u, 0x7bb12baeu, 0x0cb61b38u,
    0x92d28e9bu, 0xe5d5be0du, 0x7cdcefb7u, 0x0bdbdf21u, 0x86d3d2d4u, 0xf1d4e242u,
    0x68ddb3f8u, 0x1fda836eu, 0x81be16cdu, 0xf6b9265bu, 0x6fb077e1u, 0x18b74777u,
    0x88085ae6u, 0xff0f6a70u, 0x66063bcau, 0x11010b5cu, 0x8f659effu, 0xf862ae69u,
    0x616bffd3u, 0x166ccf45u, 0xa00ae278u, 0xd70dd2eeu, 0x4e048354u, 0x3903b3c2u,
    0xa7672661u, 0xd06016f7u, 0x4969474du, 0x3e6e77dbu, 0xaed16a4au, 0xd9d65adcu,
    0x40df0b66u, 0x37d83bf0u, 0xa9bcae53u, 0xdebb9ec5u, 0x47b2cf7fu, 0x30b5ffe9u,
    0xbdbdf21cu, 0xcabac28au, 0x53b39330u, 0x24b4a3a6u, 0xbad03605u, 0xcdd70693u,
    0x54de5729u, 0x23d967bfu, 0xb3667a2eu, 0xc4614ab8u, 0x5d681b02u, 0x2a6f2b94u,
    0xb40bbe37u, 0xc30c8ea1u, 0x5a05df1bu, 0x2d02ef8du,
};

uint32_t shard_crc32(uint32_t crc, const void *data, size_t n) {
  const unsigned char *p = data;
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) crc = crc_table[(crc ^ p[i]) & 0xffu] ^ (crc >> 8);
  return ~crc;
}

size_t shard_ck_type_size(uint32_t type) {
  switch (type) {
  case SHARD_CK_I32: return 4;
  case SHARD_CK_I64: return 8;
  case SHARD_CK_F64: return 8;
  case SHARD_CK_BYTES: return 1;
  default: return 0;
  }
}

static const char *type_name(uint32_t type) {
  switch (type) {
  case SHARD_CK_I32: return "int32";
  case SHARD_CK_I64: return "int64";
  case SHARD_CK_F64: return "float64";
  case SHARD_CK_BYTES: return "bytes";
  default: return "unknown";
  }
}

/* ---- writing ---- */

static void put(FILE *f, const void *p, size_t n) { fwrite(p, 1, n, f); }

void shard_ck_put_header(FILE *f, const shard_ck_header *h) {
  unsigned char b[SHARD_CK_HEADER] = {0};
  memcpy(b, SHARD_CK_MAGIC, 8);
  const uint32_t version = SHARD_CK_VERSION;
  memcpy(b + SHARD_CK_OFF_VERSION, &version, 4);
  memcpy(b + SHARD_CK_OFF_HASH, h->run_hash, 64);
  memcpy(b + SHARD_CK_OFF_STEP, &h->step, 8);
  memcpy(b + SHARD_CK_OFF_HIST_BYTES, &h->hist_bytes, 8);
  memcpy(b + SHARD_CK_OFF_HIST_ROWS, &h->hist_rows, 8);
  memcpy(b + SHARD_CK_OFF_HIST_CRC, &h->hist_crc, 4);
  memcpy(b + SHARD_CK_OFF_NSECTIONS, &h->nsections, 4);
  put(f, b, sizeof b); /* length and checksum: shard_ck_seal */
}

void shard_ck_put_section(FILE *f, const char *name, shard_ck_type type, const void *data, uint64_t count) {
  unsigned char head[SHARD_CK_SECTION_HEAD] = {0};
  strncpy((char *)head, name, 15);
  const uint32_t t = (uint32_t)type;
  memcpy(head + 16, &t, 4);
  memcpy(head + 24, &count, 8);
  put(f, head, sizeof head);
  const size_t n = (size_t)count * shard_ck_type_size(type);
  if (n) put(f, data, n);
  static const unsigned char zeros[8] = {0};
  if (n % 8) put(f, zeros, 8 - n % 8);
}

void shard_ck_seal(unsigned char *buf, size_t len) {
  if (len < SHARD_CK_HEADER) return;
  const uint64_t l = len;
  memcpy(buf + SHARD_CK_OFF_LENGTH, &l, 8);
  const uint32_t crc = shard_crc32(0, buf + SHARD_CK_OFF_LENGTH, len - SHARD_CK_OFF_LENGTH);
  memcpy(buf + SHARD_CK_OFF_CRC, &crc, 4);
}

/* ---- reading ---- */

int shard_ck_peek(const unsigned char *buf, size_t len, shard_ck_header *h, uint32_t *out_version, shard_msg *msg) {
  if (out_version) *out_version = 0;
  if (len >= 8 && memcmp(buf, "SHARDCK", 7) == 0 && buf[7] >= '1' && buf[7] <= '3') {
    if (out_version) *out_version = (uint32_t)(buf[7] - '0');
    return shard_msg_set(msg, SHARD_ERR_INPUT, "format %c of an earlier shard; this shard reads format %u only",
                         buf[7], SHARD_CK_VERSION);
  }
  if (len < 8 || memcmp(buf, SHARD_CK_MAGIC, 8) != 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "not a shard checkpoint (no '%s' magic)", SHARD_CK_MAGIC);
  if (len < SHARD_CK_HEADER)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "truncated header: %zu bytes of %u", len, SHARD_CK_HEADER);
  memcpy(&h->version, buf + SHARD_CK_OFF_VERSION, 4);
  if (h->version != SHARD_CK_VERSION) {
    if (out_version) *out_version = h->version;
    return shard_msg_set(msg, SHARD_ERR_INPUT, "format %u; this shard reads format %u only", h->version,
                         SHARD_CK_VERSION);
  }
  memcpy(h->run_hash, buf + SHARD_CK_OFF_HASH, 64);
  memcpy(&h->step, buf + SHARD_CK_OFF_STEP, 8);
  memcpy(&h->hist_bytes, buf + SHARD_CK_OFF_HIST_BYTES, 8);
  memcpy(&h->hist_rows, buf + SHARD_CK_OFF_HIST_ROWS, 8);
  memcpy(&h->hist_crc, buf + SHARD_CK_OFF_HIST_CRC, 4);
  memcpy(&h->nsections, buf + SHARD_CK_OFF_NSECTIONS, 4);
  return SHARD_OK;
}

int shard_ck_open(const unsigned char *buf, size_t len, shard_ck_header *h, shard_ck_reader *rd, uint32_t *out_version,
                  shard_msg *msg) {
  int st = shard_ck_peek(buf, len, h, out_version, msg);
  if (st != SHARD_OK) return st;
  uint64_t l;
  memcpy(&l, buf + SHARD_CK_OFF_LENGTH, 8);
  if (l != len)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "its header gives a length of %llu bytes, the file has %zu",
                         (unsigned long long)l, len);
  uint32_t crc;
  memcpy(&crc, buf + SHARD_CK_OFF_CRC, 4);
  const uint32_t actual = shard_crc32(0, buf + SHARD_CK_OFF_LENGTH, len - SHARD_CK_OFF_LENGTH);
  if (crc != actual)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "checksum mismatch: CRC-32 %08x recorded, %08x computed", crc, actual);
  *rd = (shard_ck_reader){.buf = buf, .len = len, .pos = SHARD_CK_HEADER, .sections_left = h->nsections};
  return SHARD_OK;
}

int shard_ck_get_section(shard_ck_reader *rd, const char *name, shard_ck_type type, void *dst, uint64_t count,
                         shard_msg *msg) {
  if (rd->sections_left == 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "section '%s' missing (the header lists fewer sections)", name);
  if (rd->len - rd->pos < SHARD_CK_SECTION_HEAD)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "section '%s' missing at byte %zu (end of file)", name, rd->pos);
  const unsigned char *head = rd->buf + rd->pos;
  char got[17] = {0};
  memcpy(got, head, 16);
  for (int i = 0; i < 16; ++i)
    if (got[i] && (got[i] < 0x20 || got[i] > 0x7e)) got[i] = '?';
  uint32_t t;
  uint64_t n;
  memcpy(&t, head + 16, 4);
  memcpy(&n, head + 24, 8);
  if (strncmp((const char *)head, name, 16) != 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "section '%s' expected at byte %zu, found '%s'", name, rd->pos, got);
  if (t != (uint32_t)type)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "section '%s' holds %s, expected %s", name, type_name(t),
                         type_name(type));
  if (n != count)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "section '%s' has %llu entries, this case has %llu", name,
                         (unsigned long long)n, (unsigned long long)count);
  const size_t bytes = (size_t)count * shard_ck_type_size(type), padded = (bytes + 7) / 8 * 8;
  if (rd->len - rd->pos - SHARD_CK_SECTION_HEAD < padded)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "section '%s' runs past the end of the file", name);
  if (bytes) memcpy(dst, head + SHARD_CK_SECTION_HEAD, bytes);
  rd->pos += SHARD_CK_SECTION_HEAD + padded;
  rd->sections_left--;
  return SHARD_OK;
}

int shard_ck_close(const shard_ck_reader *rd, shard_msg *msg) {
  if (rd->sections_left != 0)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%u more sections listed than this case has", rd->sections_left);
  if (rd->pos != rd->len)
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%zu bytes after the last section", rd->len - rd->pos);
  return SHARD_OK;
}

int shard_read_file(const char *path, size_t max_bytes, unsigned char **out, size_t *out_len, shard_msg *msg) {
  *out = NULL, *out_len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return shard_msg_set(msg, SHARD_ERR_IO, "cannot open: %s", strerror(errno));
  struct stat sb;
  if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
    fclose(f);
    return shard_msg_set(msg, SHARD_ERR_INPUT, "not a regular file");
  }
  if ((uint64_t)sb.st_size > max_bytes) {
    fclose(f);
    return shard_msg_set(msg, SHARD_ERR_INPUT, "%lld bytes, more than the %zu expected", (long long)sb.st_size,
                         max_bytes);
  }
  const size_t n = (size_t)sb.st_size;
  unsigned char *buf = malloc(n + 1);
  if (!buf) {
    fclose(f);
    return shard_msg_set(msg, SHARD_ERR_NOMEM, "out of memory for %zu bytes", n);
  }
  const size_t got = fread(buf, 1, n, f);
  const int err = ferror(f) ? errno : 0;
  fclose(f);
  if (got != n) {
    free(buf);
    return shard_msg_set(msg, SHARD_ERR_IO, "read %zu of %zu bytes%s%s", got, n, err ? ": " : "",
                         err ? strerror(err) : " (changed while read)");
  }
  *out = buf, *out_len = n;
  return SHARD_OK;
}
