/* model plugin `bar`: the output tables of the line models (particle, bar): their history
 * columns (after the run's own), summary keys and files, as data (the types
 * of io/outputs.h). The model fills a value per column id L_* of a row. */
#ifndef SHARD_MODEL_LINE_OUTPUTS_H
#define SHARD_MODEL_LINE_OUTPUTS_H

#include "shard/outputs.h"

/* the model's own `when` bits (shard/outputs.h) */
#define LINE_OUT_PARTICLE SHARD_OUT_MODEL_BIT(0) /* model.type particle */
#define LINE_OUT_BAR SHARD_OUT_MODEL_BIT(1)      /* model.type bar */
#define LINE_OUT_REF_BALL SHARD_OUT_MODEL_BIT(2) /* the bouncing-ball reference */
#define LINE_OUT_REF_BAR SHARD_OUT_MODEL_BIT(3)  /* the impacting-bar reference */

/* X(ID, name, type, unit, when, fmt, description), in file order */
#define SHARD_LINE_HISTORY_COLUMNS(X)                                                                                  \
  X(L_U, "u", SHARD_OUT_NUMBER, "m", LINE_OUT_PARTICLE, "%.15g", "particle position")                                 \
  X(L_V, "v", SHARD_OUT_NUMBER, "m/s", LINE_OUT_PARTICLE, "%.15g", "particle velocity")                               \
  X(L_A, "a", SHARD_OUT_NUMBER, "m/s^2", LINE_OUT_PARTICLE, "%.15g", "particle acceleration")                         \
  X(L_GAP, "gap", SHARD_OUT_NUMBER, "m", LINE_OUT_PARTICLE, "%.15g", "gap to the obstacle (negative: overlap)")      \
  X(L_IMPULSE, "impulse", SHARD_OUT_NUMBER, "N s", LINE_OUT_PARTICLE, "%.15g", "contact impulse of the step")         \
  X(L_FORCE, "force", SHARD_OUT_NUMBER, "N", LINE_OUT_PARTICLE, "%.15g",                                              \
    "contact force (impulse / dt, or the penalty force)")                                                              \
  X(L_U_CONTACT, "u_contact", SHARD_OUT_NUMBER, "m", LINE_OUT_BAR, "%.15g",                                           \
    "displacement of the bar's contact node (empty without a reference contact node)")                                 \
  X(L_V_CONTACT, "v_contact", SHARD_OUT_NUMBER, "m/s", LINE_OUT_BAR, "%.15g",                                         \
    "velocity of the bar's contact node (empty without a reference contact node)")                                     \
  X(L_FORCE_CONTACT, "force_contact", SHARD_OUT_NUMBER, "N", LINE_OUT_BAR, "%.15g",                                   \
    "force at the bar's contact node (0 without contact)")                                                             \
  X(L_MOMENTUM, "momentum", SHARD_OUT_NUMBER, "kg m/s", LINE_OUT_BAR, "%.15g", "total linear momentum of the bar")   \
  X(L_COHESIVE_REVERSIBLE, "cohesive_reversible", SHARD_OUT_NUMBER, "J", SHARD_OUT_FRACTURE, "%.15g",                  \
    "recoverable energy stored in the cohesive interfaces")                                                            \
  X(L_COHESIVE_WORK, "cohesive_work", SHARD_OUT_NUMBER, "J", SHARD_OUT_FRACTURE, "%.15g",                              \
    "work done on the cohesive interfaces since the start")                                                            \
  X(L_FRACTURE_DISSIPATION, "fracture_dissipation", SHARD_OUT_NUMBER, "J", SHARD_OUT_FRACTURE, "%.15g",                \
    "energy dissipated by fracture: cohesive_work - cohesive_reversible")                                              \
  X(L_INTERFACES, "interfaces", SHARD_OUT_INTEGER, "", SHARD_OUT_FRACTURE, NULL, "cohesive interfaces so far")        \
  X(L_BROKEN, "broken", SHARD_OUT_INTEGER, "", SHARD_OUT_FRACTURE, NULL,                                               \
    "fully broken interfaces (opening beyond delta_c)")                                                                \
  X(L_FRAGMENTS, "fragments", SHARD_OUT_INTEGER, "", SHARD_OUT_FRACTURE, NULL, "fragments: broken + 1")               \
  X(L_INSERTIONS, "insertions", SHARD_OUT_INTEGER, "", SHARD_OUT_FRACTURE, NULL, "cohesive insertions so far")        \
  X(L_U_REF, "u_ref", SHARD_OUT_NUMBER, "m", LINE_OUT_REF_BALL, "%.15g",                                              \
    "reference (exact) position of the bouncing ball")                                                                 \
  X(L_V_REF, "v_ref", SHARD_OUT_NUMBER, "m/s", LINE_OUT_REF_BALL, "%.15g",                                            \
    "reference (exact) velocity of the bouncing ball")                                                                 \
  X(L_U_REF_BAR, "u_ref", SHARD_OUT_NUMBER, "m", LINE_OUT_REF_BAR, "%.15g",                                           \
    "1D wave solution: displacement of the contact node")                                                              \
  X(L_V_REF_BAR, "v_ref", SHARD_OUT_NUMBER, "m/s", LINE_OUT_REF_BAR, "%.15g",                                         \
    "1D wave solution: velocity of the contact node")                                                                  \
  X(L_FORCE_REF, "force_ref", SHARD_OUT_NUMBER, "N", LINE_OUT_REF_BAR, "%.15g", "1D wave solution: contact force")

#define SHARD_LINE_ID_(id, ...) id,
enum shard_line_history_column { SHARD_LINE_HISTORY_COLUMNS(SHARD_LINE_ID_) SHARD_LINE_HISTORY_N };
#undef SHARD_LINE_ID_

/* history.csv (the model's columns), summary.yaml (its keys), and its files:
 * fragments.csv, fragment_sizes.csv, fragment_histogram.csv, interfaces.csv, probes.csv */
extern const shard_out_table shard_line_history;
extern const shard_out_table shard_line_summary;
extern const shard_out_table shard_line_fragments;
extern const shard_out_table shard_line_fragment_sizes;
extern const shard_out_table shard_line_fragment_histogram;
extern const shard_out_table shard_line_interfaces;
extern const shard_out_table shard_line_probes;
/* the words of the bits above for the docs */
extern const char *const shard_line_when_words[SHARD_OUT_MODEL_BITS];

#endif
