set terminal pngcairo size 1000,560 noenhanced font 'sans,10'
set output 'bench/out/wd_sn500_250gb/whole_drive_fill/timeseries.png'
set datafile separator ','
set key autotitle columnhead outside bottom center horizontal
set title 'Throughput over time: WD Blue SN500 250GB, whole-drive sequential fill'
set xlabel 'simulated time (s)'
set ylabel 'MB/s'
set grid
set yrange [0:*]
plot 'bench/out/wd_sn500_250gb/whole_drive_fill/timeseries.csv' using 2:4 with lines lw 1.5 title 'write MB/s', \
     'bench/out/wd_sn500_250gb/whole_drive_fill/timeseries.csv' using 2:3 with lines lw 1.5 title 'read MB/s'
