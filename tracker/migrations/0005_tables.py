import django.db.models.deletion
import django.db.models.functions.text
import tracker.models
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tracker', '0004_basic_format'),
    ]

    operations = [
        migrations.CreateModel(
            name='Table',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=80)),
                ('edit_token', models.CharField(default=tracker.models.new_token, editable=False, max_length=64, unique=True)),
                ('view_token', models.CharField(default=tracker.models.new_token, editable=False, max_length=64, unique=True)),
                ('edit_key', models.CharField(editable=False, max_length=64, unique=True)),
                ('view_key', models.CharField(editable=False, max_length=64, unique=True)),
                ('created_from', models.CharField(blank=True, editable=False, help_text="Keyed hash of the creator's address.", max_length=64)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
            ],
            options={
                'ordering': ['-updated_at'],
                'indexes': [models.Index(fields=['created_from', 'created_at'], name='table_creations')],
            },
        ),
        migrations.AddField(
            model_name='game',
            name='table',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='games', to='tracker.table'),
        ),
        migrations.CreateModel(
            name='Member',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=30)),
                ('order', models.PositiveSmallIntegerField()),
                ('table', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='members', to='tracker.table')),
            ],
            options={
                'ordering': ['order'],
                'constraints': [models.UniqueConstraint(fields=('table', 'order'), name='one_member_per_place'), models.UniqueConstraint(django.db.models.functions.text.Lower('name'), models.F('table'), name='one_member_name_per_table')],
            },
        ),
    ]
