"""PySpark ETL that writes TFRecords for a later TensorFlow job."""
import tensorflow as tf
from pyspark import SparkContext
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("events-to-tfrecord").getOrCreate()
sc = SparkContext.getOrCreate()

events = spark.read.parquet("s3://bucket/events/")
events = events.filter(F.col("country") == "DE").repartition(200, "user_id").cache()
sampled = events.sample(fraction=0.1, seed=3)
sampled.show(20)

rdd = sc.textFile("s3://bucket/raw/*.log")
parsed = rdd.map(lambda line: line.split("\t")).filter(lambda f: len(f) == 5).cache()
print(parsed.take(5))
pairs = parsed.map(lambda f: (f[0], 1)).reduceByKey(lambda a, b: a + b)
top = pairs.repartition(1).sortBy(lambda kv: -kv[1]).take(10)
batches = parsed.repartition(64).cache().take(100)


def to_example(row):
    return tf.train.Example(
        features=tf.train.Features(
            feature={
                "user_id": tf.train.Feature(bytes_list=tf.train.BytesList(value=[row.user_id.encode()])),
                "clicks": tf.train.Feature(int64_list=tf.train.Int64List(value=[row.clicks])),
            }
        )
    )


def write_partition(index, rows):
    with tf.io.TFRecordWriter(f"out/part-{index:05d}.tfrecord") as writer:
        for row in rows:
            writer.write(to_example(row).SerializeToString())
    yield index


sampled.rdd.mapPartitionsWithIndex(write_partition).collect()
