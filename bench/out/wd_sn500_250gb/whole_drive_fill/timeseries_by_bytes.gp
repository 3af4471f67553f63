set terminal pngcairo size 1000,560 noenhanced font 'sans,10'
set output 'bench/out/wd_sn500_250gb/whole_drive_fill/timeseries_by_bytes.png'
set datafile separator ','
set key autotitle columnhead outside bottom center horizontal
set title 'Write speed per amount written: WD Blue SN500 250GB'
set xlabel 'GB written (per phase)'
set ylabel 'MB/s'
set grid
set yrange [0:*]
plot 'bench/out/wd_sn500_250gb/whole_drive_fill/timeseries_by_bytes.csv' using 2:3 with lines lw 1.5 title 'write MB/s'
