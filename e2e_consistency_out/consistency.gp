set terminal pngcairo size 1000,560 noenhanced font 'sans,10'
set output 'e2e_consistency_out/consistency.png'
set datafile separator ','
set key autotitle columnhead outside bottom center horizontal
set title 'Performance consistency: test TLC 1GB (NVMe) (last 10 s: 7996 IOPS, avg/stddev 7.9)'
set xlabel 'time (s)'
set ylabel 'IOPS'
set grid
set yrange [0:*]
plot 'e2e_consistency_out/consistency.csv' using 1:2 with points pt 7 ps 0.4 title 'IOPS'
