/* model plugin `bar`: the output tables of the line models (see line_outputs.h). */
#include "line_outputs.h"

#define N_(a) (sizeof(a) / sizeof((a)[0]))
#define I_ SHARD_OUT_INTEGER
#define R_ SHARD_OUT_NUMBER
#define S_ SHARD_OUT_STRING
#define PART LINE_OUT_PARTICLE
#define BAR LINE_OUT_BAR
#define FRAC SHARD_OUT_FRACTURE
#define BALL LINE_OUT_REF_BALL
#define BREF LINE_OUT_REF_BAR

#define SHARD_LINE_FIELD_(id, name, type, unit, when, fmt, desc) {name, type, unit, when, fmt, desc},
static const shard_out_field history_fields[] = {SHARD_LINE_HISTORY_COLUMNS(SHARD_LINE_FIELD_)};
#undef SHARD_LINE_FIELD_

const shard_out_table shard_line_history = {
    "history.csv", "time history: the model's columns",
    "After the run's columns: the particle's state or the bar's contact node and momentum, the fracture "
    "columns, and the reference solution's.",
    history_fields, N_(history_fields), 0};

static const shard_out_field summary_fields[] = {
    {"fracture.interfaces", I_, "", FRAC, NULL, "cohesive interfaces at the end"},
    {"fracture.insertions", I_, "", FRAC, NULL, "cohesive insertions during the run"},
    {"fracture.broken", I_, "", FRAC, NULL, "fully broken interfaces"},
    {"fracture.fragments", I_, "", FRAC, NULL, "fragments N_f (broken + 1)"},
    {"fracture.mean_fragment_size", R_, "m", FRAC, NULL, "bar length / N_f"},
    {"fracture.dissipation", R_, "J", FRAC, NULL, "fracture dissipation G: cohesive work - reversible"},
    {"fracture.cohesive_work", R_, "J", FRAC, NULL, "work done on the cohesive interfaces"},
    {"fracture.reversible", R_, "J", FRAC, NULL, "recoverable cohesive energy at the end"},
    {"fracture.g_hat_per_fragment", R_, "1", FRAC, NULL, "G / (N_f G_c A): dissipation per fragment in units of G_c A"},
    {"fracture.fragment_size.mean", R_, "m", FRAC | BAR, NULL, "mean fragment size of this run"},
    {"fracture.fragment_size.ci95", R_, "m", FRAC | BAR, NULL,
     "half-width of the 95% interval of the mean (Student t; 0 for one fragment)"},
    {"fracture.fragment_size.std", R_, "m", FRAC | BAR, NULL, "standard deviation of the sizes (n - 1; 0 for one)"},
    {"fracture.fragment_size.min", R_, "m", FRAC | BAR, NULL, "smallest fragment"},
    {"fracture.fragment_size.median", R_, "m", FRAC | BAR, NULL, "median fragment size"},
    {"fracture.fragment_size.max", R_, "m", FRAC | BAR, NULL, "largest fragment"},
    {"fracture.max_step_insertions", I_, "", FRAC, NULL,
     "most interfaces inserted in one step (all at once: nucleation not resolved in time)"},
    {"fracture.max_step_insertions_time", R_, "s", FRAC, NULL, "time of that step (~: no insertion)"},
    {"reference.type", S_, "", BALL, NULL, "ball: the bouncing-ball solution"},
    {"reference.eta", R_, "1", BALL, NULL,
     "relative L1 error of the position over the run: sum |u - u_ref| / sum |u_ref| over the steps"},
    {"reference.zeno_time", R_, "s", BALL, NULL, "time the exact ball comes to rest (accumulation of bounces)"},
    {"reference.type", S_, "", BREF, NULL, "bar_impact: the 1D wave solution of a bar hitting a rigid wall"},
    {"reference.contact_start", R_, "s", BREF, NULL, "start of the first step with a contact force (~: no contact)"},
    {"reference.contact_start_ref", R_, "s", BREF, NULL, "exact time of first contact t_c"},
    {"reference.contact_duration", R_, "s", BREF, NULL, "from the start of the first to the end of the last step with a contact force (~: no contact)"},
    {"reference.contact_duration_ref", R_, "s", BREF, NULL, "exact contact duration t_b = 2 L / c"},
    {"reference.mean_force", R_, "N", BREF, NULL,
     "mean contact force over (t_c + 0.1 t_b, t_c + 0.9 t_b) (~: no step in that window)"},
    {"reference.force_ref", R_, "N", BREF, NULL, "exact contact force F0 = rho c A |v0|"},
    {"reference.rebound_velocity", R_, "m/s", BREF, NULL, "velocity of the centre of mass at the end"},
    {"reference.velocity_ref", R_, "m/s", BREF, NULL, "exact rebound velocity -v0 (e = 1 wave solution)"},
    {"reference.eta", R_, "1", BREF, NULL,
     "relative L1 error of the contact node's displacement over the whole run: sum |u - u_ref| / sum |u_ref| (~: "
     "u_ref has been 0 at every step, a bar that starts on the wall and stops before it leaves)"},
    {"reference.eta_u", R_, "1", BREF, NULL,
     "relative L1 error of the contact node's displacement after the rebound, over the steps in (t_c + t_b, t_c + "
     "4 t_b]: sum |u - u_ref| / sum |u_ref| (~: the run ends before that window)"},
    {"reference.eta_v", R_, "1", BREF, NULL,
     "relative L1 error of the contact node's velocity over the same window (t_c + t_b, t_c + 4 t_b]: sum |v - "
     "v_ref| / sum |v_ref| (~: the run ends before it)"},
    {"reference.eta_u_contact", R_, "1", BREF, NULL,
     "relative L1 error of the contact node's displacement during the contact, over [t_c, t_c + t_b] (~: no step "
     "in it)"},
};
const shard_out_table shard_line_summary = {
    "summary.yaml", "summary of a run: the model's keys",
    "After the run's keys: fracture (interfaces, fragments, dissipation) and the reference solution's errors.",
    summary_fields, N_(summary_fields), 0};

static const shard_out_field fragments_fields[] = {
    {"fragment", I_, "", 0, NULL, "fragment number, left to right from 0"},
    {"x_left", R_, "m", 0, NULL, "reference position of the fragment's left end"},
    {"x_right", R_, "m", 0, NULL, "reference position of the fragment's right end"},
    {"size", R_, "m", 0, NULL, "reference length x_right - x_left"},
    {"mass", R_, "kg", 0, NULL, "mass"},
    {"velocity", R_, "m/s", 0, NULL, "velocity of the centre of mass (momentum / mass)"},
};
const shard_out_table shard_line_fragments = {
    "fragments.csv", "fragments at the end of the run",
    "One row per fragment of the final state, left to right (a fragment ends at a fully broken interface).",
    fragments_fields, N_(fragments_fields), FRAC};

static const shard_out_field sizes_fields[] = {
    {"rank", I_, "", 0, NULL, "rank of the size, ascending from 1"},
    {"size", R_, "m", 0, NULL, "fragment size"},
    {"size_over_mean", R_, "1", 0, NULL, "size over the run's mean fragment size"},
    {"cumulative_number", R_, "1", 0, NULL, "fraction of the fragments with this size or smaller"},
    {"cumulative_mass", R_, "1", 0, NULL, "fraction of the bar's length in fragments of this size or smaller"},
};
const shard_out_table shard_line_fragment_sizes = {
    "fragment_sizes.csv", "fragment size distribution",
    "The fragment sizes ascending with their cumulative distributions by number and by mass.", sizes_fields,
    N_(sizes_fields), FRAC};

static const shard_out_field hist_fields[] = {
    {"bin", I_, "", 0, NULL, "bin number from 0"},
    {"size_left", R_, "m", 0, NULL, "left edge of the bin"},
    {"size_right", R_, "m", 0, NULL, "right edge of the bin (the largest size for the last bin)"},
    {"count", I_, "", 0, NULL, "fragments in the bin"},
    {"fraction", R_, "1", 0, NULL, "count over the number of fragments"},
    {"density_over_mean", R_, "1", 0, NULL,
     "probability density of size / mean size: fraction / (bin width / mean size)"},
};
const shard_out_table shard_line_fragment_histogram = {
    "fragment_histogram.csv", "fragment size histogram",
    "ceil(sqrt(N_f)) equal bins over [0, largest size] with counts and the density of size / mean size.",
    hist_fields, N_(hist_fields), FRAC};

static const shard_out_field iface_fields[] = {
    {"interface", I_, "", 0, NULL, "interface number, in order of insertion"},
    {"node", I_, "", 0, NULL, "mesh node the interface split"},
    {"x", R_, "m", 0, NULL, "reference position"},
    {"sigma_c", R_, "Pa", 0, NULL, "cohesive strength"},
    {"delta_c", R_, "m", 0, NULL, "critical opening (fully broken beyond it)"},
    {"delta", R_, "m", 0, NULL, "opening at the end of the run"},
    {"delta_max", R_, "m", 0, NULL, "largest opening reached"},
    {"damage", R_, "1", 0, NULL, "min(delta_max / delta_c, 1)"},
    {"work", R_, "J", 0, NULL, "work done on the interface"},
    {"reversible", R_, "J", 0, NULL, "recoverable energy stored at the end"},
    {"dissipation", R_, "J", 0, NULL, "energy dissipated: work - reversible"},
    {"max_step_opening", R_, "1", 0, NULL,
     "largest opening increment of one step over delta_c (how well the time step resolves the opening)"},
};
const shard_out_table shard_line_interfaces = {
    "interfaces.csv", "cohesive interfaces at the end of the run",
    "One row per cohesive interface inserted during the run (or placed at the start).", iface_fields,
    N_(iface_fields), FRAC};

static const shard_out_field probe_fields[] = {
    {"t", R_, "s", 0, "%.12g", "time of the sample (a step's end)"},
    {"facet", I_, "", 0, NULL, "facet number: interior node facet + 1, from 0 at the left (every output.probes.stride-th)"},
    {"stress", R_, "Pa", 0, "%.9g",
     "normal stress at the facet: the mean of the two element stresses E (u_b - u_a) / h_e beside it (the "
     "insertion criterion's stress)"},
    {"damage", R_, "1", 0, "%.9g", "damage d = min(delta_max / delta_c, 1) of the facet's interface (0 without one)"},
    {"sigma_c", R_, "Pa", 0, "%.9g", "the facet's strength; its current strength is sigma_c (1 - damage)"},
};
const shard_out_table shard_line_probes = {
    "probes.csv", "stress probes",
    "One row per probed facet and sample: every output.probes.interval from output.probes.from to "
    "output.probes.to (at the first step at or after each sample time), rows of one time together, facets "
    "ascending.",
    probe_fields, N_(probe_fields), SHARD_OUT_PROBES};

const char *const shard_line_when_words[SHARD_OUT_MODEL_BITS] = {"particle", "bar", "ball reference", "bar reference"};
