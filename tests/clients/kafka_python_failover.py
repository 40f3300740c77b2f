"""kafka-python with its defaults (idempotent, acks=all) produces through a leader crash.

Prints `leader N` once the first record is acknowledged (the test then crashes broker N),
goes on producing, then reads the partition back and prints `acked A missing M`.
"""
import sys
import time

from kafka import KafkaConsumer, KafkaProducer, TopicPartition

boot = sys.argv[1]
tp = TopicPartition("orders", 0)
producer = KafkaProducer(bootstrap_servers=boot, request_timeout_ms=20000, delivery_timeout_ms=60000)
producer.send("orders", b"v-0", partition=0).get(timeout=30)
print("leader", producer._metadata.leader_for_partition(tp), flush=True)
futures = [(f"v-{i}", producer.send("orders", f"v-{i}".encode(), partition=0)) for i in range(1, 2)]
for i in range(2, 300):
    futures.append((f"v-{i}", producer.send("orders", f"v-{i}".encode(), partition=0)))
    time.sleep(0.02)
acked = {"v-0"}
for value, future in futures:
    try:
        future.get(timeout=60)
        acked.add(value)
    except Exception as e:  # an unacknowledged record may be lost; it is not counted
        print("not acked", value, type(e).__name__, flush=True)
producer.close()

consumer = KafkaConsumer(bootstrap_servers=boot, enable_auto_commit=False)
consumer.assign([tp])
consumer.seek_to_beginning(tp)
seen = set()
deadline = time.time() + 60
while time.time() < deadline and not acked <= seen:
    for records in consumer.poll(timeout_ms=1000).values():
        seen.update(m.value.decode(errors="replace") for m in records)
consumer.close()
print("acked", len(acked), "missing", len(acked - seen), flush=True)
