"""Baselines with scikit-learn and NumPy before the Keras model."""
import numpy as np
import tensorflow as tf
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

rng = np.random.default_rng(0)
X = rng.normal(size=(5000, 20))
y = (X[:, 0] + rng.normal(size=5000) > 0).astype(int)
rng.shuffle(X)
batches = np.array_split(X, 50)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0)

pipe = Pipeline([("scale", StandardScaler()), ("clf", LogisticRegression(max_iter=1000))])
pipe.fit(X_train, y_train)
forest = RandomForestClassifier(n_estimators=200, n_jobs=-1).fit(X_train, y_train)
print(pipe.score(X_test, y_test), forest.score(X_test, y_test))

# One optimizer *name* for two models is fine: each compile builds its own optimizer.
nets = []
for width in (32, 64):
    net = tf.keras.Sequential([tf.keras.layers.Dense(width, activation="relu"), tf.keras.layers.Dense(1, activation="sigmoid")])
    net.compile(optimizer="adam", loss="binary_crossentropy")
    net.fit(X_train, y_train, batch_size=128, epochs=5, verbose=0)
    nets.append(net)
