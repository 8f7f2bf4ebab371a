"""Custom training loop with tf.function and a restored optimizer state."""
import tensorflow as tf

(x_train, y_train), (x_test, y_test) = tf.keras.datasets.fashion_mnist.load_data()
x_train = x_train[..., None].astype("float32") / 255.0
x_test = x_test[..., None].astype("float32") / 255.0

BATCH_SIZE = 64
EPOCHS = 5

train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train))
train_ds = train_ds.shuffle(60000).batch(BATCH_SIZE)  # expect: PL103
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(BATCH_SIZE)  # expect: PL103

model = tf.keras.Sequential(
    [
        tf.keras.layers.Conv2D(32, 3, activation="relu"),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(128, activation="relu"),
        tf.keras.layers.Dense(10),
    ]
)
loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = tf.keras.optimizers.Adam()

# Make the slot variables exist before restoring the checkpoint.
optimizer._create_all_weights(model.trainable_variables)  # expect: PL404
ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
ckpt.restore(tf.train.latest_checkpoint("./checkpoints"))

train_loss = tf.keras.metrics.Mean(name="train_loss")
train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="train_accuracy")
test_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="test_accuracy")


@tf.function
def train_step(images, labels):
    with tf.GradientTape() as tape:
        predictions = model(images, training=True)
        loss = loss_object(labels, predictions)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    train_loss(loss)
    train_accuracy(labels, predictions)


@tf.function
def test_step(images, labels):
    test_accuracy(labels, model(images, training=False))


for epoch in range(EPOCHS):
    train_loss.reset_state()
    train_accuracy.reset_state()
    test_accuracy.reset_state()
    for images, labels in train_ds:
        train_step(images, labels)
    for images, labels in test_ds:
        test_step(images, labels)
    print(f"epoch {epoch + 1}: loss {train_loss.result():.4f} lr {optimizer._decayed_lr(tf.float32):.5f}")  # expect: PL404
