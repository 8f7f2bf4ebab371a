"""Custom training loop with a prefetched pipeline and a fresh optimizer per run (clean)."""
import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE
(x_train, y_train), _ = tf.keras.datasets.cifar10.load_data()


def to_float(image, label):
    image = tf.image.convert_image_dtype(image, tf.float32)
    image = tf.image.resize_with_crop_or_pad(image, 36, 36)
    return image, label


def random_crop(image, label):
    image = tf.image.random_crop(image, [32, 32, 3])
    return tf.image.random_flip_left_right(image), label


# Deterministic work is cached; random augmentation comes after the cache.
train_ds = (
    tf.data.Dataset.from_tensor_slices((x_train, y_train))
    .map(to_float, num_parallel_calls=AUTOTUNE)
    .cache()
    .shuffle(50000)
    .map(random_crop, num_parallel_calls=AUTOTUNE)
    .batch(128)
    .prefetch(AUTOTUNE)
)


def make_model():
    return tf.keras.Sequential(
        [
            tf.keras.layers.Conv2D(32, 3, activation="relu"),
            tf.keras.layers.GlobalAveragePooling2D(),
            tf.keras.layers.Dense(10),
        ]
    )


loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

for run in range(3):
    model = make_model()
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.05 * (run + 1), momentum=0.9)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    for epoch in range(5):
        for step, (x, y) in enumerate(train_ds):
            loss = train_step(x, y)
        print(run, epoch, float(loss), float(optimizer.learning_rate))
