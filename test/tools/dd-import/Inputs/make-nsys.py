"""Writes a small Nsight Systems export (the tables and columns of nsys
2022.2 that dd-import reads): one thread launching KERNELS kernels on one
stream, each a cudaLaunchKernel call and its kernel, then a synchronize.

  make-nsys.py OUT [--kernels N] [--bad-types] [--reversed] [--view] [--wal]

--bad-types puts text into an INTEGER column of one call and one kernel,
--reversed makes one kernel end before it starts, --view replaces the
kernel table by an endless recursive view, --wal leaves the database in
write-ahead-log mode."""
import argparse
import sqlite3

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--kernels", type=int, default=4)
p.add_argument("--bad-types", action="store_true")
p.add_argument("--reversed", action="store_true")
p.add_argument("--view", action="store_true")
p.add_argument("--wal", action="store_true")
p.add_argument("--bad-utf8", action="store_true")
a = p.parse_args()

db = sqlite3.connect(a.out)
db.executescript("""
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER,
  eventClass INTEGER, globalTid INTEGER, correlationId INTEGER,
  nameId INTEGER, returnValue INTEGER, callchainId INTEGER);
""")
if a.view:
    db.executescript("""
CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE N(I) AS
  (SELECT 1 UNION ALL SELECT I + 1 FROM N)
  SELECT I AS start, I + 1 AS end, 0 AS deviceId, 7 AS streamId FROM N;
""")
else:
    db.executescript("""
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER,
  deviceId INTEGER, contextId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,
  shortName INTEGER);
""")
db.executemany("INSERT INTO StringIds VALUES (?, ?)",
               [(1, "cudaLaunchKernel_v7000"), (2, "gemm_kernel"),
                (3, "cudaDeviceSynchronize_v3020")])
if a.bad_utf8:  # 'gemm' and a byte no UTF-8 string holds
    db.execute("UPDATE StringIds SET value = CAST(x'67656d6dff' AS TEXT) "
               "WHERE id = 2")
tid = (1 << 48) | (4242 << 24) | 4242
t = 1000
for i in range(a.kernels):
    corr = 10 + i
    start = t if not (a.bad_types and i == 1) else "soon"
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
               " (?, ?, 0, ?, ?, 1, 0, NULL)", (start, t + 5000, tid, corr))
    if not a.view:
        ks, ke = t + 6000, t + 9000
        if a.reversed and i == 2:
            ks, ke = ke, ks
        dev = 0 if not (a.bad_types and i == 3) else "gpu0"
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
                   " (?, ?, ?, 1, 7, ?, 4242, 2, 2)", (ks, ke, dev, corr))
    t += 10000
db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
           " (?, ?, 0, ?, 99, 3, 0, NULL)", (t, t + 20000, tid))
db.commit()
if a.wal:
    db.execute("PRAGMA journal_mode=WAL")
db.close()
