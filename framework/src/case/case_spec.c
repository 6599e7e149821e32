/* host: the case format as data. Every key a case file may hold is declared
 * here (host keys) or in a plugin's spec table (plugin slots: the model
 * plugins' for the `model` section). Validation,
 * defaults, docs/cases.md and the JSON schema all come from these tables. */
#include "case/case.h"

#define R SHARD_PARAM_REAL
#define I SHARD_PARAM_INT
#define B SHARD_PARAM_BOOL
#define S SHARD_PARAM_STRING
#define C SHARD_PARAM_CHOICE
#define REQ SHARD_PARAM_REQUIRED
#define POS SHARD_PARAM_MIN_EXCLUSIVE

static const shard_param_spec top_specs[] = {
    {"name", S, 0, 0, 0, "", 0, 0, "short name of the case: the default output directory is out/NAME, so one plain path component (letters, digits, '_', '-', '.'; not starting with '.')"},
    {"description", S, 0, 0, 0, "", 0, 0, "free text"},
};

static const shard_param_spec fracture_specs[] = {
    {"g_c", R, 0, 0, SHARD_INF, "J/m^2", REQ | POS, 0, "fracture energy G_c of every facet"},
    {"insertion", B, "true", 0, 0, "", 0, 0, "insert new cohesive interfaces when a facet's stress exceeds its strength"},
    {"strength.distribution", C, "constant", 0, 0, "", 0, "constant|uniform|weibull|defects",
     "facet strengths: constant nominal; uniform in [min, max]; Weibull(scale = nominal, modulus); or the paper's "
     "defect model (docs/theory.md section 11)"},
    {"strength.nominal", R, 0, 0, SHARD_INF, "Pa", REQ | POS, 0, "nominal strength sigma_c"},
    {"strength.min", R, 0, 0, SHARD_INF, "Pa", 0, 0, "uniform: lower bound"},
    {"strength.max", R, 0, 0, SHARD_INF, "Pa", 0, 0, "uniform: upper bound"},
    {"strength.modulus", R, "10", 0, SHARD_INF, "1", POS, 0, "weibull: modulus m"},
    {"strength.defect_density", R, "1e5", 0, SHARD_INF, "1/m", 0, 0, "defects: defects per unit length rho_d"},
    {"strength.defect_min", R, "0.98", 0, 1, "1", 0, 0, "defects: smallest strength factor"},
    {"strength.defect_max", R, "1.0", 0, 1, "1", 0, 0, "defects: largest strength factor"},
    {"strength.seed", I, "1", 0, 9.2e18, "1", 0, 0, "seed of the strength draws"},
    {"initial.count", I, "0", 0, 1e9, "1", 0, 0, "interfaces present at t = 0, on internal nodes drawn at random"},
    {"initial.position", R, 0, -SHARD_INF, SHARD_INF, "m", SHARD_PARAM_LIST, 0,
     "interfaces at t = 0 on the internal nodes nearest these positions (a number or a list)"},
    {"initial.node", I, 0, 1, 1e8, "1", SHARD_PARAM_LIST, 0,
     "interfaces at t = 0 on these internal nodes (index from the left end, 1 .. elements - 1; a number or a list)"},
    {"initial.damage", R, "0", 0, 1, "1", SHARD_PARAM_LIST, 0,
     "damage d0 of the initial interfaces (1: fully broken): one value for all, or a list with one value per "
     "interface of initial.position then initial.node"},
    {"initial.seed", I, "1", 0, 9.2e18, "1", 0, 0, "seed of the initial interface positions"},
};


static const shard_param_spec time_specs[] = {
    {"end", R, 0, 0, SHARD_INF, "s", REQ | POS, 0, "final time T"},
    {"dt", R, 0, 0, SHARD_INF, "s", REQ | POS, 0,
     "time step; an expression may use dt_c (stable step of dt_estimate), dt_bulk, h_min, h_mean, c"},
    {"dt_estimate", C, "default", 0, 0, "", 0, "default|paper",
     "stable step estimate: default (2/sqrt(lambda_max), docs/theory.md section 8) or the paper's formula"},
    {"energy_guard", R, "100", 1, SHARD_INF, "1", 0, 0,
     "stop as unstable when the mechanical energy exceeds this multiple of the injected energy, times "
     "1/(1 - (dt/dt_c_default)^2) for the Newmark-form schemes (NSN, CDL, explicit Newmark), whose stable runs "
     "can show that much more (docs/theory.md section 7)"},
    {"allow_unstable", B, "false", 0, 0, "", 0, 0,
     "run a conditionally stable integrator (nsn, cd_lagrange, explicit_newmark) with time.dt above its stable step "
     "dt_c_default = 2/sqrt(lambda_max) anyway; without it such a step is refused at set-up (exit 2)"},
    {"max_balance_drift", R, "0.1", 0, SHARD_INF, "1", POS, 0,
     "stop as failed (exit 3) once the relative energy-balance drift |B - B0| / max(E, |W_ext|) exceeds this "
     "(docs/theory.md section 7); the default sits above the drift of every stable run of cases/ (penalty fragmentation "
     "reaches a few 1e-2)"},
    {"stop", C, "end", 0, 0, "", 0, "end|dissipation_settled",
     "end: run to time.end; dissipation_settled: stop earlier once the fracture dissipation changed by less than "
     "1e-3 (relative) at three checks in a row, checks 10 s_bar / c apart (docs/theory.md section 13)"},
    {"stop_after", R, "0", 0, SHARD_INF, "s", 0, 0,
     "dissipation_settled: never stop before this time (a confined bar: after it has reached the walls)"},
    {"checkpoint_every", I, "0", 0, 9.2e18, "1", 0, 0,
     "write a checkpoint every N steps (0: never); `shard run --restart DIR` continues from the last one, and so "
     "do `shard run --resume` and `shard campaign --resume` when it is the same run's"},
    {"max_steps", I, "100000000", 1, 9.2e18, "1", 0, 0, "refuse runs that would take more steps"},
};

static const shard_param_spec output_specs[] = {
    {"every", I, "1", 1, 9.2e18, "1", 0, 0, "history row every N steps (event rows are always written)"},
    {"interval", R, 0, 0, SHARD_INF, "s", POS, 0, "history row every interval of time (overrides every)"},
    {"events", B, "true", 0, 0, "", 0, 0, "extra history rows at steps where the active set changes"},
    {"fields_interval", R, 0, 0, SHARD_INF, "s", POS, 0,
     "bar: write field snapshots (ParaView fields.pvd + fields/*.vtu: u, v, stress, strain, damage, fragment) "
     "every interval of time (absent: none)"},
    {"spacetime", B, "false", 0, 0, "", 0, 0,
     "bar: record stress and damage at every history row and render spacetime.png (gnuplot) at the end"},
    {"probes.from", R, 0, 0, SHARD_INF, "s", 0, 0,
     "bar with fracture: start of the stress-probe window (probes.csv: every probed facet's stress and damage; "
     "with probes.to and probes.interval; absent: no probes)"},
    {"probes.to", R, 0, 0, SHARD_INF, "s", POS, 0, "end of the stress-probe window (after probes.from)"},
    {"probes.interval", R, 0, 0, SHARD_INF, "s", POS, 0,
     "time between two probe samples (at least time.dt: a sample is the state at the end of a step)"},
    {"probes.stride", I, "1", 1, 2147483647, "1", 0, 0, "probe every N-th facet (facets 0, N, 2N, ...)"},
    {"progress", C, "auto", 0, 0, "", 0, "auto|always|never", "progress line on stderr (auto: when a terminal)"},
};

static const shard_param_spec lcp_host_specs[] = {
    {"on_failure", C, "stop", 0, 0, "", 0, "stop|fallback",
     "when a block LCP fails: stop the run, or retry it with `fallback`"},
    {"fallback", S, 0, 0, 0, "", 0, 0,
     "name of the LCP solver plugin retried on failure (on_failure: fallback); for a solver of a restricted "
     "class (tridiag: tridiagonal Z-matrix blocks) also the one that solves every block outside the class, "
     "without calling the primary (such a block without a fallback stops the run)"},
    {"dump", B, "false", 0, 0, "", 0, 0, "write failing problems as Matrix Market files in the run directory"},
    {"dump_every", I, "0", 0, 9.2e18, "1", 0, 0,
     "also write every block of every N-th step with its solution (NAME.M.mtx, NAME.q.mtx, NAME.z.mtx); 0: never"},
    {"check_tolerance", R, 0, 0, 1, "1", POS, 0,
     "the host checks every solution a solver reports as solved: its complementarity residual (z >= 0, "
     "w = Wz + q >= 0, min(z, w) = 0, relative to max(|q|, |Wz|)) must be at most this, else the solve failed "
     "(on_failure applies); absent: 10 times the solver's own `tolerance` parameter, 1e-6 for a solver without one"},
    {"scalar_blocks", C, "closed_form", 0, 0, "", 0, "closed_form|solver",
     "blocks of one contact with a positive diagonal w: z = max(0, -q/w) in the host (closed_form), or hand them "
     "to the solver like every other block (solver)"},
};

static const shard_param_spec reference_specs[] = {
    {"type", SHARD_PARAM_STRING, "auto", 0, 0, "", 0, 0,
     "analytic reference for error norms: auto (the model's default), none, or one the model plugin names "
     "(its README: ball for the particle, bar_impact for the bar); the model refuses one it does not have"},
};

const shard_case_section shard_case_sections[] = {
    {"", "top-level keys", 0, top_specs, SHARD_NPARAMS(top_specs), 0, 0, 0, 0, 0},
    {"model", "the mechanical model plugin", SHARD_SECTION_REQUIRED, 0, 0, "type", 0, SHARD_KIND_MODEL, 0, 0},
    {"integrator", "the time integrator plugin", SHARD_SECTION_REQUIRED, 0, 0, "plugin", 0, SHARD_KIND_INTEGRATOR, 0, 0},
    {"contact.impact", "impact law (for NSN, Moreau-Jean, CD-Lagrange)", 0, 0, 0, "plugin", 0, SHARD_KIND_CONTACT_LAW,
     0, 0},
    {"contact.force", "force law (for explicit Newmark)", 0, 0, 0, "plugin", 0, SHARD_KIND_CONTACT_LAW, 0, 0},
    {"fracture", "extrinsic cohesive fracture of the model's facets: traction-separation law plugin and facet strengths", 0,
     fracture_specs, SHARD_NPARAMS(fracture_specs), "plugin", 0, SHARD_KIND_TSL, 0, 0},
    {"lcp", "LCP solver plugin and failure policy", 0, lcp_host_specs, SHARD_NPARAMS(lcp_host_specs), "plugin", "lemke",
     SHARD_KIND_LCP_SOLVER, 0, 0},
    {"time", "time stepping", SHARD_SECTION_REQUIRED, time_specs, SHARD_NPARAMS(time_specs), 0, 0, 0, 0, 0},
    {"output", "history and summary", 0, output_specs, SHARD_NPARAMS(output_specs), 0, 0, 0, 0, 0},
    {"reference", "analytic reference", 0, reference_specs, SHARD_NPARAMS(reference_specs), 0, 0, 0, 0, 0},
};
const uint32_t shard_case_n_sections = SHARD_NPARAMS(shard_case_sections);
