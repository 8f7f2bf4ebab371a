"""Multi-worker training with per-replica input functions (clean)."""
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE
GLOBAL_BATCH = 1024

strategy = tf.distribute.MultiWorkerMirroredStrategy()


def dataset_fn(input_context):
    batch_size = input_context.get_per_replica_batch_size(GLOBAL_BATCH)
    files = tf.data.Dataset.list_files("gs://bucket/train-*.tfrecord", shuffle=True, seed=0)
    files = files.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
    ds = files.interleave(tf.data.TFRecordDataset, num_parallel_calls=AUTOTUNE, deterministic=False)
    ds = ds.map(lambda r: tf.io.parse_tensor(r, tf.float32), num_parallel_calls=AUTOTUNE)
    ds = ds.shuffle(16384).batch(batch_size, drop_remainder=True)
    return ds.prefetch(AUTOTUNE)


dist_ds = strategy.distribute_datasets_from_function(dataset_fn)

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(256, activation="relu"), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.Adam()


@tf.function
def step(iterator):
    def replica_step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x)))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return strategy.run(replica_step, args=(next(iterator),))


iterator = iter(dist_ds)
for _ in range(1000):
    step(iterator)
