"""PyTorch training with a DataLoader, logging to TensorBoard through tf.summary."""
import tensorflow as tf
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, random_split
from torchvision import datasets, transforms

transform = transforms.Compose(
    [transforms.RandomHorizontalFlip(), transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))]
)
full = datasets.FashionMNIST("data", train=True, download=True, transform=transform)
train_set, val_set = random_split(full, [50000, 10000])
train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4, prefetch_factor=2)
val_loader = DataLoader(val_set, batch_size=256)


class Windowed(Dataset):
    def __init__(self, series, size):
        self.series, self.size = series, size

    def __len__(self):
        return len(self.series) - self.size

    def __getitem__(self, i):
        return self.series[i : i + self.size], self.series[i + self.size]


model = nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
second = nn.Linear(10, 10)
writer = tf.summary.create_file_writer("runs/torch")
for epoch in range(5):
    model.train()
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
    with writer.as_default():
        tf.summary.scalar("loss", loss.item(), step=epoch)
