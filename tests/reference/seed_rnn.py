# The recurrent attention models of the project's design document (a PyTorch attention tutorial), as it gives
# them, with the indentation its text lost put back and nothing else changed: BasicAttention, the BiLSTM
# attention-pooling AttentionTextClassifier, and the GRU EncoderRNN with its AttentionDecoderRNN.
# attnscope's LibTorch modules mirror their parameter names; tests/reference runs these with Debian's
# python3-torch. Kept as given.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class BasicAttention(nn.Module):
    def __init__(self, hidden_size):
        super(BasicAttention, self).__init__()
        # Attention projection layer
        self.attention = nn.Linear(hidden_size, 1)

    def forward(self, encoder_outputs):
        # encoder_outputs shape: [batch_size, seq_len, hidden_size]
        # Calculate attention weights
        attention_weights = self.attention(encoder_outputs)  # [batch_size, seq_len, 1]
        attention_weights = F.softmax(attention_weights.squeeze(-1), dim=1)  # [batch_size, seq_len]
        # Apply attention weights to get context vector
        attention_weights = attention_weights.unsqueeze(2)  # [batch_size, seq_len, 1]
        context = torch.sum(encoder_outputs * attention_weights, dim=1)  # [batch_size, hidden_size]
        return context, attention_weights.squeeze(2)


class AttentionTextClassifier(nn.Module):
    def __init__(self, vocab_size, embed_size, hidden_size, num_classes, dropout=0.5):
        super(AttentionTextClassifier, self).__init__()
        # Embedding layer
        self.embedding = nn.Embedding(vocab_size, embed_size)
        # Bidirectional LSTM
        self.lstm = nn.LSTM(
            embed_size,
            hidden_size,
            bidirectional=True,
            batch_first=True
        )
        # Attention layer
        self.attention = nn.Linear(hidden_size * 2, 1)
        # Output layer
        self.fc = nn.Linear(hidden_size * 2, num_classes)
        # Dropout
        self.dropout = nn.Dropout(dropout)

    def forward(self, text, text_lengths):
        # text shape: [batch_size, seq_len]
        # Get embeddings
        embedded = self.embedding(text)  # [batch_size, seq_len, embed_size]
        embedded = self.dropout(embedded)
        # Pack sequence for LSTM
        packed = pack_padded_sequence(
            embedded,
            text_lengths.cpu(),
            batch_first=True,
            enforce_sorted=False
        )
        # Pass through LSTM
        packed_output, (hidden, cell) = self.lstm(packed)
        output, output_lengths = pad_packed_sequence(packed_output, batch_first=True)
        # output shape: [batch_size, seq_len, hidden_size*2]
        # Calculate attention weights
        attention_weights = self.attention(output)  # [batch_size, seq_len, 1]
        attention_weights = F.softmax(attention_weights.squeeze(2), dim=1)  # [batch_size, seq_len]
        # Create attention mask for padding
        mask = torch.arange(output.shape[1])[None, :].to(text.device) < text_lengths[:, None]
        attention_weights = attention_weights * mask.float()
        # Normalize weights for padded sequences
        attention_weights = attention_weights / (attention_weights.sum(dim=1, keepdim=True) + 1e-9)
        # Apply attention weights
        context = torch.bmm(
            attention_weights.unsqueeze(1),  # [batch_size, 1, seq_len]
            output  # [batch_size, seq_len, hidden_size*2]
        )  # [batch_size, 1, hidden_size*2]
        context = context.squeeze(1)  # [batch_size, hidden_size*2]
        # Final classification
        output = self.fc(self.dropout(context))  # [batch_size, num_classes]
        return output, attention_weights


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size):
        super(EncoderRNN, self).__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)

    def forward(self, input_seq, hidden=None):
        embedded = self.embedding(input_seq)
        output, hidden = self.gru(embedded, hidden)
        return output, hidden


class AttentionDecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size):
        super(AttentionDecoderRNN, self).__init__()
        self.hidden_size = hidden_size
        self.output_size = output_size
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.attention = nn.Linear(hidden_size * 2, 1)
        self.gru = nn.GRU(hidden_size * 2, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size, output_size)

    def forward(self, input_step, hidden, encoder_outputs):
        # input_step shape: [batch_size, 1]
        # hidden shape: [1, batch_size, hidden_size]
        # encoder_outputs shape: [batch_size, seq_len, hidden_size]
        # Get embedding of current input word
        embedded = self.embedding(input_step)  # [batch_size, 1, hidden_size]
        # Calculate attention weights
        hidden_expanded = hidden.transpose(0, 1)  # [batch_size, 1, hidden_size]
        hidden_expanded = hidden_expanded.expand(-1, encoder_outputs.size(1), -1)
        # Concatenate hidden state with each encoder output
        attn_inputs = torch.cat((encoder_outputs, hidden_expanded), dim=2)
        # Calculate attention weights
        attn_weights = self.attention(attn_inputs)  # [batch_size, seq_len, 1]
        attn_weights = F.softmax(attn_weights.squeeze(-1), dim=1)  # [batch_size, seq_len]
        # Apply attention weights to encoder outputs
        context = torch.bmm(attn_weights.unsqueeze(1), encoder_outputs)  # [batch_size, 1, hidden_size]
        # Combine embedded input word and context vector
        gru_input = torch.cat((embedded, context), dim=2)  # [batch_size, 1, hidden_size*2]
        # GRU output
        output, hidden = self.gru(gru_input, hidden)  # output: [batch_size, 1, hidden_size]
        # Final output layer
        output = self.out(output.squeeze(1))  # [batch_size, output_size]
        output = F.log_softmax(output, dim=1)
        return output, hidden, attn_weights
