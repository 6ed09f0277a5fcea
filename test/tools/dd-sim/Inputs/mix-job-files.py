"""Prints the job file argv[1] (a job in the folder above) with its rank 1
line taken from the job file argv[2]: a job that names another job's rank."""
import sys

mine = open(sys.argv[1]).read().splitlines()
theirs = [l for l in open(sys.argv[2]).read().splitlines()
          if l.startswith("rank 1 ")]
for line in mine:
    if line.startswith("rank 1 "):
        line = theirs[0]
    if line.startswith("rank "):
        head, name = line.split(" file ")
        line = head + " file ../" + name
    print(line)
