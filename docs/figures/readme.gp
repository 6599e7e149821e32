# The README figure. From the repository root, after:
#   build/bin/shard run cases/paper/ball_e08.yaml -o /tmp/o/b_nsn
#   build/bin/shard run cases/paper/ball_e08.yaml -o /tmp/o/b_cdl --set integrator.plugin=cd_lagrange
#   build/bin/shard run cases/paper/damaged_bar.yaml -o /tmp/o/dbar_full --set output.every=20
# run: gnuplot docs/figures/readme.gp
set terminal pngcairo size 1100,420 font "DejaVu Sans,10" noenhanced
set output "docs/figures/readme.png"
set datafile separator ","
set multiplot layout 1,2
set title "Bouncing ball, e = 0.8, dt = 1e-2 (cases/paper/ball_e08.yaml)"
set xlabel "t [s]"; set ylabel "u [m]"; set key top right
plot "/tmp/o/b_nsn/history.csv" every ::1 using 2:23 with lines lw 3 lc rgb "#bbbbbb" title "analytic (Zeno at 4.06 s)", \
     "" every ::1 using 2:17 with lines lw 1.5 lc rgb "#1f77b4" title "NSN", \
     "/tmp/o/b_cdl/history.csv" every ::1 using 2:17 with lines lw 1 dt 2 lc rgb "#d62728" title "CD-Lagrange"
set title "Damaged bar, NSN at 0.99 dt_c: contact node and energy balance"
set xlabel "t [us]"; set ylabel "u contact node [nm]"; set y2label "relative balance drift"; set y2tics; set ytics nomirror
set key bottom right
plot "/tmp/o/dbar_full/history.csv" every ::1 using ($2*1e6):($17*1e9) with lines lw 2 lc rgb "#1f77b4" title "u contact node", \
     "" every ::1 using ($2*1e6):($28*1e9) with lines lw 2 dt 2 lc rgb "#999999" title "u analytic", \
     "" every ::1 using ($2*1e6):16 axes x1y2 with lines lc rgb "#2ca02c" title "drift of H + C_dis + G - W_ext"
unset multiplot
