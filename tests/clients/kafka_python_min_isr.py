"""kafka-python with retries=0 (so without idempotence) and acks=all gets
NotEnoughReplicasError once the ISR is smaller than min.insync.replicas."""
import sys

from kafka import KafkaProducer
from kafka.errors import NotEnoughReplicasError

producer = KafkaProducer(bootstrap_servers=sys.argv[1], acks="all", enable_idempotence=False, retries=0)
try:
    producer.send("orders", b"x", partition=0).get(timeout=30)
    print("acked", flush=True)
except NotEnoughReplicasError:
    print("NotEnoughReplicasError", flush=True)
