/* host: field snapshots for ParaView and the space-time picture (docs/cases.md, `output`).
 *
 * Snapshots: every shard_snapshots_write() writes dir/fields/fields_NNNNNN.vtu
 * (VTK XML UnstructuredGrid, version 1.0) of the bar's current state and
 * rewrites dir/fields.pvd, the ParaView collection of every snapshot so far
 * with its time. Both files appear atomically (temporary file + rename).
 *   points  one per DOF (twins included) at x = X + u, so open cracks show
 *           as gaps; point data u [m], v [m/s], X (reference position) [m]
 *   cells   one VTK_LINE per element between its two end DOFs, in reference
 *           order; cell data
 *             stress   sigma_e = E (u_b - u_a) / h_e          [Pa]
 *             strain   (u_b - u_a) / h_e
 *             damage   max over the interfaces at the element's two ends of
 *                      d = min(delta_max / delta_c, 1); 0 without interface
 *             fragment 0-based fragment id: the number of fully broken
 *                      interfaces (delta_max >= delta_c) to the left (docs/theory.md §8)
 * Data: the time value (FieldData TimeValue) in ASCII, every other array as
 * appended raw binary compressed with zlib (compressor="vtkZLibDataCompressor",
 * header_type="UInt64", the host's byte order): per array a header [number
 * of blocks, block size (32768 bytes), size of a partial last block (0: the
 * last block is full), compressed size of each block] then the blocks, each
 * deflated on its own; the DataArray's offset= counts from the byte after the
 * '_' that opens <AppendedData>. The state (u, v, X) is Float64 (exact); the
 * derived display fields (stress, strain, damage) and the point coordinates
 * are Float32 (7 significant digits): random doubles barely compress, and
 * these halve the file. fragment, connectivity and offsets are Int32, types
 * UInt8. 4.3 to 5.8 times smaller than the same snapshot in ASCII (2000-element
 * bars: impacting, and fragmenting with up to 1700 twin nodes).
 * open() preallocates the buffers (zlib's worst case for every array of
 * ndof_max points and nel cells) and the deflate stream; write() allocates
 * nothing proportional to the model (only the time list of the collection
 * grows, by doubling, with the number of snapshots).
 *
 * Space-time picture: every shard_spacetime_record() appends one row (t, then
 * per column: stress and damage). Columns: the elements in reference order,
 * grouped by ceil(nel / SHARD_SPACETIME_MAX_COLS) consecutive elements when
 * the bar has more than SHARD_SPACETIME_MAX_COLS of them; a column holds the
 * length-weighted mean stress and the largest damage of its group (so a crack
 * stays visible), at the centre of the group's reference extent. 600 columns:
 * about the pixel width of a panel, so no column is dropped when the image is
 * drawn (with 2000, four cracks out of five vanished from the PNG). Rows: a
 * growing buffer (doubling) of at most SHARD_SPACETIME_MAX_ROWS rows; when it
 * is full, every other row is dropped and only every 2nd (then 4th, ...)
 * further call is kept, so the rows stay the calls whose index is a multiple
 * of a power-of-two stride and the picture always covers the whole run.
 * finish() writes dir/spacetime_stress.dat and dir/spacetime_damage.dat
 * (gnuplot ASCII "nonuniform matrix": first row = column count then the x
 * of each column [m], then one row per time: t [s] then the values; 7
 * significant digits), dir/spacetime.gp (two panels: stress with a diverging
 * palette symmetric about 0 over +-the 99.5th percentile of |stress| (at
 * least a tenth of the largest; beyond it the colour saturates), damage on
 * 0..1; `with image` when the times are evenly spaced, pm3d otherwise; data in
 * SI, tic labels in mm/us/MPa... as the magnitudes suit) and renders
 * dir/spacetime.png (written to a temporary name, then renamed) by running
 * `gnuplot dir/spacetime.gp` when gnuplot is on PATH. A missing gnuplot is
 * not an error: shard_snapshots_note() then says how to render it. */
#ifndef SHARD_SNAPSHOT_H
#define SHARD_SNAPSHOT_H

#include "model.h"
#include "shard/status.h"

#define SHARD_SPACETIME_MAX_ROWS 1000
#define SHARD_SPACETIME_MAX_COLS 600

typedef struct shard_snapshots shard_snapshots;

/* dir: the run directory (must exist); creates dir/fields. The model must be
 * a bar (it has elements); its size (ndof_max, nel) is fixed from here on. */
int shard_snapshots_open(shard_snapshots **out, const char *dir, const shard_model *m, shard_msg *msg);
/* Snapshot of m's current state (m->sys.u, m->sys.v) at time t. */
int shard_snapshots_write(shard_snapshots *s, double t, const shard_model *m, shard_msg *msg);
/* One row of the space-time picture at time t (t finite, not decreasing). */
int shard_spacetime_record(shard_snapshots *s, double t, const shard_model *m, shard_msg *msg);
/* Write the space-time files and render the PNG (see above). */
int shard_snapshots_finish(shard_snapshots *s, shard_msg *msg);
/* After finish(): a line for the user when the PNG was not rendered
 * ("gnuplot not found: render with gnuplot DIR/spacetime.gp"), else NULL. */
const char *shard_snapshots_note(const shard_snapshots *s);
/* Snapshots written and space-time rows held so far. */
int32_t shard_snapshots_count(const shard_snapshots *s);
int32_t shard_spacetime_rows(const shard_snapshots *s);
void shard_snapshots_close(shard_snapshots *s); /* accepts NULL */

#endif
