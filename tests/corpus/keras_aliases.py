"""The same pipeline spelled with every import style people use."""
import keras
import tensorflow as tf
import tensorflow.compat.v2 as tf2
from tensorflow import data as tfdata
from tensorflow import keras as tfk
from tensorflow.keras.utils import image_dataset_from_directory as load_images

AUTOTUNE = tfdata.AUTOTUNE


def scale(image, label):
    return tf.image.resize(image, (96, 96)), label


# keras 3 namespace
ds_a = keras.utils.image_dataset_from_directory("photos", image_size=(96, 96), batch_size=64)
ds_a = ds_a.shuffle(1024)  # expect: PL203
ds_a = ds_a.prefetch(AUTOTUNE)

# tf.keras through an alias, helper imported under another name
ds_b = load_images("photos", image_size=(96, 96), batch_size=64)
ds_b = ds_b.map(scale).shuffle(512)  # expect: PL203  (`scale` is stateless: tf.data parallelizes its map)
ds_b = ds_b.prefetch(AUTOTUNE)

# tf.compat.v2
ds_c = tf2.data.Dataset.from_tensor_slices(tf2.random.uniform([1000, 8]))
ds_c = ds_c.map(lambda v: tf2.reshape(v, [2, 4]))
ds_c = ds_c.batch(32).prefetch(AUTOTUNE)

# from tensorflow import data
vectorize = tfk.layers.TextVectorization(max_tokens=20000)
vectorize.adapt(tfdata.TextLineDataset(["corpus.txt"]).batch(256))
ds_d = tfdata.TextLineDataset(["corpus.txt"]).map(vectorize)  # expect: PL101
ds_d = ds_d.padded_batch(16).prefetch(AUTOTUNE)

# deprecated keras.preprocessing spelling of the same helper
ds_e = tfk.preprocessing.image_dataset_from_directory("photos", batch_size=64)
ds_e = ds_e.shuffle(100)  # expect: PL103, PL203

model = tfk.Sequential([tfk.layers.Rescaling(1.0 / 255), tfk.layers.Flatten(), tfk.layers.Dense(5)])
model.compile(optimizer="adam", loss=tfk.losses.SparseCategoricalCrossentropy(from_logits=True))
for ds in (ds_a, ds_b):
    model.fit(ds, epochs=1)
model.fit(ds_e, epochs=1)
