"""Custom training loop with tf.function, a shuffled/repeated pipeline and Python-side augmentation."""
import numpy as np
import tensorflow as tf

BATCH = 32
STEPS = 10000

(x_train, y_train), _ = tf.keras.datasets.cifar10.load_data()


def cutout(image):
    """NumPy cutout augmentation."""
    image = image.copy()
    y, x = np.random.randint(0, 32, size=2)
    image[max(0, y - 4) : y + 4, max(0, x - 4) : x + 4] = 0
    return image


def preprocess(image, label):
    image = tf.numpy_function(cutout, [image], tf.uint8)
    image = tf.cast(image, tf.float32) / 255.0
    return tf.reshape(image, [32, 32, 3]), label


dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train.squeeze()))
dataset = dataset.repeat()
dataset = dataset.shuffle(50)
dataset = dataset.map(preprocess)
dataset = dataset.batch(BATCH)

model = tf.keras.applications.ResNet50(input_shape=(32, 32, 3), weights=None, classes=10)
optimizer = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(images, labels):
    with tf.GradientTape() as tape:
        loss = loss_fn(labels, model(images, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


for step, (images, labels) in enumerate(dataset):
    loss = train_step(images, labels)
    if step % 100 == 0:
        print(f"step {step}: loss {loss:.4f}")
    if step == STEPS:
        break
