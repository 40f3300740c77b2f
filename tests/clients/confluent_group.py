"""confluent-kafka (librdkafka): two consumers of one group share the partitions of
"orders"; one leaves; the other takes its partition over from the offset it committed.
Prints "shared A B" (each consumer's partitions) and then "took over read N duplicates D"."""
import sys
import time

from confluent_kafka import Consumer, Producer

boot = sys.argv[1]
producer = Producer({"bootstrap.servers": boot, "acks": "all"})


def produce(first, last):
    for i in range(first, last):
        producer.produce("orders", value=f"r-{i}".encode(), partition=i % 2)
    assert producer.flush(30) == 0, "every record delivered"


def consumer():
    return Consumer({
        "bootstrap.servers": boot,
        "group.id": "g",
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "session.timeout.ms": 10000,
        "heartbeat.interval.ms": 500,
    })


produce(0, 40)
a, b = consumer(), consumer()
a.subscribe(["orders"])
b.subscribe(["orders"])
seen = {}
deadline = time.time() + 60
while len(seen) < 40 and time.time() < deadline:
    for c, name in ((a, "A"), (b, "B")):
        m = c.poll(0.1)
        if m is not None and m.error() is None:
            seen[m.value().decode()] = name
            c.commit(message=m, asynchronous=False)
owners = {name: sorted(p.partition for p in c.assignment()) for c, name in ((a, "A"), (b, "B"))}
print("shared", owners["A"], owners["B"], "read", len(seen), flush=True)
b.close()
produce(40, 80)
again = []
deadline = time.time() + 60
while len([v for v in again if int(v[2:]) >= 40]) < 40 and time.time() < deadline:
    m = a.poll(0.2)
    if m is not None and m.error() is None:
        again.append(m.value().decode())
duplicates = len([v for v in again if int(v[2:]) < 40])
print("took over read", len(set(again)), "duplicates", duplicates, flush=True)
a.close()
