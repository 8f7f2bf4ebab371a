"""Multi-worker training that moves preprocessing to a tf.data service cluster."""
import json
import os

import numpy as np
import tensorflow as tf
from tensorflow.data.experimental import service

AUTOTUNE = tf.data.AUTOTUNE
DISPATCHER = os.environ.get("DISPATCHER", "grpc://dispatcher:5050")
FILES = sorted(tf.io.gfile.glob("gs://bucket/train-*.tfrecord"))


def parse(record):
    features = tf.io.parse_single_example(record, {"image": tf.io.FixedLenFeature([], tf.string),
                                                   "label": tf.io.FixedLenFeature([], tf.int64)})
    image = tf.image.resize(tf.io.decode_jpeg(features["image"], channels=3), (224, 224))
    return image / 255.0, features["label"]


def legacy_augment(image, label):
    # an old OpenCV augmentation kept from the single-host version
    image = tf.numpy_function(lambda x: np.fliplr(x).astype(np.float32), [image], tf.float32)  # expect: PL106
    return image, label


def train_dataset(input_context):
    ds = tf.data.Dataset.from_tensor_slices(FILES)
    ds = ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)  # expect: PL604
    ds = ds.shuffle(len(FILES), seed=13)  # expect: PL603
    ds = ds.interleave(tf.data.TFRecordDataset, num_parallel_calls=AUTOTUNE, deterministic=False)
    ds = ds.map(parse, num_parallel_calls=AUTOTUNE)
    ds = ds.map(legacy_augment, num_parallel_calls=AUTOTUNE)  # expect: PL601
    ds = ds.batch(64, drop_remainder=True).prefetch(AUTOTUNE)  # expect: PL602
    return ds.apply(service.distribute(processing_mode=service.ShardingPolicy.OFF,
                                       service=DISPATCHER, job_name="resnet-train"))


def eval_dataset():
    # evaluation stays on the trainer: its py_function and seeded shuffle are not sent anywhere
    ds = tf.data.Dataset.from_tensor_slices(sorted(tf.io.gfile.glob("gs://bucket/val-*.tfrecord")))
    ds = ds.interleave(tf.data.TFRecordDataset, num_parallel_calls=AUTOTUNE).shuffle(1000, seed=1)
    ds = ds.map(parse, num_parallel_calls=AUTOTUNE).batch(64)
    return ds.prefetch(AUTOTUNE)


def dynamic_dataset():
    # distributed_epoch with an unseeded shuffle and the trainer's prefetch after distribute
    ds = tf.data.Dataset.from_tensor_slices(FILES).shuffle(len(FILES))
    ds = ds.interleave(tf.data.TFRecordDataset, num_parallel_calls=AUTOTUNE)
    ds = ds.map(parse, num_parallel_calls=AUTOTUNE).batch(64)
    ds = ds.apply(service.distribute("distributed_epoch", service=DISPATCHER, job_name="dyn"))
    return ds.prefetch(AUTOTUNE)


strategy = tf.distribute.MultiWorkerMirroredStrategy()
task = json.loads(os.environ.get("TF_CONFIG", "{}")).get("task", {})
with strategy.scope():
    model = tf.keras.applications.ResNet50(weights=None, classes=1000)
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
train = strategy.distribute_datasets_from_function(train_dataset)
model.fit(train, epochs=90, steps_per_epoch=5000, validation_data=eval_dataset())
model.fit(dynamic_dataset(), epochs=1, steps_per_epoch=10)
