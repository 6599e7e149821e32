/* host: the energies of a run (docs/theory.md §12): state energies, step increments, the balance
 * and its drift. */
#ifndef SHARD_RUN_ENERGY_H
#define SHARD_RUN_ENERGY_H

#include "run/state.h"

double run_energy_state(run *r);
void run_energy_balance(run *r, double E, int first);
void run_energy_step(run *r);
double run_energy_aMa(const run *r);
void run_energies(run *r, int first);

#endif
