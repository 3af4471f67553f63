set terminal pngcairo size 1000,560 noenhanced font 'sans,10'
set output 'bench/out/wd_sn500_250gb/whole_drive_fill/fill.png'
set datafile separator ','
set key autotitle columnhead outside bottom center horizontal
set title 'Whole-drive fill: WD Blue SN500 250GB (SLC cache 3.0 GB, last 16 GB 437 MB/s, overall 440 MB/s)'
set xlabel 'GB written'
set ylabel 'MB/s'
set grid
set yrange [0:*]
plot 'bench/out/wd_sn500_250gb/whole_drive_fill/fill.csv' using 1:2 with lines lw 1.5 title 'MB/s per GB written'
