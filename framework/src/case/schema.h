/* host: the case format described for people and tools (schema.c): JSON
 * Schema, Markdown key tables, parameter tables. */
#ifndef SHARD_SCHEMA_H
#define SHARD_SCHEMA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "loader/registry.h"
#include "shard/params.h"

/* JSON Schema (draft 2020-12) of the case format for this registry. */
int shard_schema_write_case(const shard_registry *reg, FILE *out);

/* The per-section key tables of the case format (and each plugin's
 * parameters) as Markdown, for docs/cases.md. */
int shard_schema_write_markdown(const shard_registry *reg, FILE *out);

/* One parameter table as Markdown (key, type, default, range, unit,
 * required, description), as in docs/cases.md and the plugin READMEs, and
 * its pieces: the type's name and the range in words ("[0, 1]", "(0, inf)",
 * "any", the choices "a, b", "-" for bool and string). */
void shard_param_table_markdown(FILE *out, const shard_param_spec *specs, uint32_t n);
const char *shard_param_type_name(shard_param_type t);
void shard_param_range_text(const shard_param_spec *s, char *buf, size_t n);

#endif
