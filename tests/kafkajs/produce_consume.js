// kafkajs produces 30 records to "orders" with acks=all, then a consumer group reads them
// back from the beginning. Prints "produced N" and "consumed N in order".
const { Kafka, logLevel } = require('kafkajs')

const kafka = new Kafka({ clientId: 'kafkajs-test', brokers: process.argv[2].split(','), logLevel: logLevel.NOTHING })

async function main () {
  const producer = kafka.producer()
  await producer.connect()
  const messages = Array.from({ length: 30 }, (_, i) => ({ value: `j-${i}`, partition: 0 }))
  const result = await producer.send({ topic: 'orders', acks: -1, messages })
  console.log(`produced ${messages.length} at ${result[0].baseOffset}`)
  await producer.disconnect()

  const consumer = kafka.consumer({ groupId: 'js', sessionTimeout: 10000, heartbeatInterval: 500 })
  await consumer.connect()
  await consumer.subscribe({ topic: 'orders', fromBeginning: true })
  const got = []
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${got.length} consumed`)), 60000)
    consumer.run({
      eachMessage: async ({ message }) => {
        got.push(message.value.toString())
        if (got.length >= 30) { clearTimeout(timer); resolve() }
      }
    })
  })
  const inOrder = got.every((v, i) => v === `j-${i}`)
  console.log(`consumed ${got.length} ${inOrder ? 'in order' : 'out of order: ' + got.join(',')}`)
  await consumer.disconnect()
}

main().then(() => process.exit(0), (e) => { console.log(`failed: ${e.message}`); process.exit(1) })
