set terminal pngcairo size 1000,560 noenhanced font 'sans,10'
set output 'e2e_consistency_out/timeseries.png'
set datafile separator ','
set key autotitle columnhead outside bottom center horizontal
set title 'Throughput over time: test TLC 1GB (NVMe), performance consistency'
set xlabel 'simulated time (s)'
set ylabel 'MB/s'
set grid
set yrange [0:*]
plot 'e2e_consistency_out/timeseries.csv' using 2:4 with lines lw 1.5 title 'write MB/s', \
     'e2e_consistency_out/timeseries.csv' using 2:3 with lines lw 1.5 title 'read MB/s'
