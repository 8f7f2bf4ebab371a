"""Dogs vs cats, TF 1.x / early TF 2 style with ImageDataGenerator and fit_generator."""
import tensorflow as tf
from tensorflow.keras.preprocessing.image import ImageDataGenerator

IMG_SIZE = (150, 150)
BATCH = 32

train_datagen = ImageDataGenerator(  # expect: PL403
    rescale=1.0 / 255,
    rotation_range=40,
    width_shift_range=0.2,
    height_shift_range=0.2,
    shear_range=0.2,
    zoom_range=0.2,
    horizontal_flip=True,
)
test_datagen = ImageDataGenerator(rescale=1.0 / 255)  # expect: PL403

train_generator = train_datagen.flow_from_directory(
    "data/train", target_size=IMG_SIZE, batch_size=BATCH, class_mode="binary"
)
validation_generator = test_datagen.flow_from_directory(
    "data/validation", target_size=IMG_SIZE, batch_size=BATCH, class_mode="binary"
)

model = tf.keras.models.Sequential(
    [
        tf.keras.layers.Conv2D(32, (3, 3), activation="relu", input_shape=(150, 150, 3)),
        tf.keras.layers.MaxPooling2D(2, 2),
        tf.keras.layers.Conv2D(64, (3, 3), activation="relu"),
        tf.keras.layers.MaxPooling2D(2, 2),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(512, activation="relu"),
        tf.keras.layers.Dense(1, activation="sigmoid"),
    ]
)
model.compile(loss="binary_crossentropy", optimizer=tf.keras.optimizers.RMSprop(learning_rate=1e-4), metrics=["acc"])

history = model.fit_generator(  # expect: PL402
    train_generator,
    steps_per_epoch=100,
    epochs=100,
    validation_data=validation_generator,
    validation_steps=50,
)

# Later rewritten for tf.keras 2.x fit, keeping the Keras-2 worker arguments.
model.fit(train_generator, epochs=20, validation_data=validation_generator, workers=4, use_multiprocessing=True)  # expect: PL406
model.evaluate(validation_generator)
