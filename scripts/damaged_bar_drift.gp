# Balance drift over time on the damaged bar, NSN against penalty (paper §4.3):
#   shard run cases/paper/damaged_bar.yaml -o out/dr_nsn --set output.every=20
#   shard run cases/paper/damaged_bar_penalty.yaml -o out/dr_pen --set output.every=100
#   gnuplot -e "nsn='out/dr_nsn'; pen='out/dr_pen'; out='drift.png'" scripts/damaged_bar_drift.gp
set terminal pngcairo size 800,420 font "DejaVu Sans,10" noenhanced
set output out
set datafile separator ","
set logscale y; set grid; set key bottom right
set xlabel "t [us]"; set ylabel "|relative drift of H + C_dis + G - W_ext|"
set title "Damaged bar: energy balance (NSN 0.99 dt_c, penalty alpha = 10 at 0.2 dt_c)"
plot nsn."/history.csv" every ::1 using ($2*1e6):(abs($16) > 0 ? abs($16) : 1e-17) with lines lw 2 title "NSN, capped law, e = 0", \
     pen."/history.csv" every ::1 using ($2*1e6):(abs($16) > 0 ? abs($16) : 1e-17) with lines lw 2 title "explicit Newmark + penalty, uncapped law"
