"""Where real projects get the optimizer object they hand to compile."""
import tensorflow as tf
from tensorflow import keras


def make_opt():
    return tf.keras.optimizers.Ftrl(learning_rate=0.05)


def build(width):
    return keras.Sequential([keras.layers.Dense(width), keras.layers.Dense(1)])


# a local factory called once, its result shared
opt = make_opt()
wide = build(64)
deep = build(8)
wide.compile(optimizer=opt, loss="mse")
deep.compile(optimizer=opt, loss="mse")  # expect: PL401

# a factory called per model is fresh each time
first = build(4)
first.compile(optimizer=make_opt(), loss="mse")
second = build(4)
second.compile(optimizer=make_opt(), loss="mse")

# legacy and compat namespaces are optimizers too
legacy = tf.keras.optimizers.legacy.Adam(learning_rate=1e-4)
teacher = build(32)
student = build(8)
teacher.compile(optimizer=legacy, loss="mse")
student.compile(optimizer=legacy, loss="mse")  # expect: PL401

# a class chosen at runtime, instantiated once
optimizer_class = tf.compat.v1.keras.optimizers.Adagrad
shared = optimizer_class(0.01)
for units in (16, 32):
    member = build(units)
    member.compile(optimizer=shared, loss="mse")  # expect: PL401

# one object twice in a multi-optimizer compile
tower_opt = keras.optimizers.Adam()
two_towers = build(16)
two_towers.compile(optimizer=[tower_opt, tower_opt], loss="mse")  # expect: PL401

# the seed users' case: a clone compiled with the original's optimizer
base = build(32)
base.compile(optimizer=keras.optimizers.Adam(1e-3), loss="mse")
base.fit(x, y, epochs=3)
clone = keras.models.clone_model(base)
clone.compile(optimizer=base.optimizer, loss="mse")  # expect: PL401
clone.fit(x, y, epochs=3)

# recompiling the same model with its own optimizer, strings and get() are fine
base.compile(optimizer=base.optimizer, loss="mae")
for rate in (1e-3, 1e-4):
    trial = build(8)
    trial.compile(optimizer=keras.optimizers.get("adam"), loss="mse")
    other = build(8)
    other.compile(optimizer="adam", loss="mse")

# an ensemble sharing one optimizer through a config dict
config = dict(loss="mse", optimizer=keras.optimizers.Adam(1e-4))
ensemble = []
for _ in range(3):
    member = build(16)
    member.compile(**config)  # expect: PL401
    ensemble.append(member)
