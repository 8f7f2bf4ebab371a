"""Multi-GPU training with MirroredStrategy and a custom loop."""
import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
BATCH_SIZE_PER_REPLICA = 64
GLOBAL_BATCH_SIZE = BATCH_SIZE_PER_REPLICA * strategy.num_replicas_in_sync
AUTOTUNE = tf.data.AUTOTUNE

(images, labels), _ = tf.keras.datasets.cifar10.load_data()


def preprocess(image, label):
    image = tf.image.per_image_standardization(tf.cast(image, tf.float32))
    return image, tf.squeeze(label)


options = tf.data.Options()
options.experimental_deterministic = False  # expect: PL501
options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA

train_dataset = (
    tf.data.Dataset.from_tensor_slices((images, labels))
    .shuffle(50000)
    .map(preprocess, num_parallel_calls=AUTOTUNE)
    .batch(GLOBAL_BATCH_SIZE)  # expect: PL103
    .with_options(options)
)
train_dist_dataset = strategy.experimental_distribute_dataset(train_dataset)

with strategy.scope():
    model = tf.keras.applications.ResNet50V2(input_shape=(32, 32, 3), weights=None, classes=10)
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)
    loss_object = tf.keras.losses.SparseCategoricalCrossentropy(
        from_logits=True, reduction=tf.keras.losses.Reduction.NONE
    )


def compute_loss(labels, predictions):
    per_example_loss = loss_object(labels, predictions)
    return tf.nn.compute_average_loss(per_example_loss, global_batch_size=GLOBAL_BATCH_SIZE)


def train_step(inputs):
    x, y = inputs
    with tf.GradientTape() as tape:
        loss = compute_loss(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def distributed_train_step(dataset_inputs):
    per_replica_losses = strategy.run(train_step, args=(dataset_inputs,))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_losses, axis=None)


for epoch in range(10):
    total_loss = 0.0
    num_batches = 0
    for batch in train_dist_dataset:
        total_loss += distributed_train_step(batch)
        num_batches += 1
    print(epoch, total_loss / num_batches)
